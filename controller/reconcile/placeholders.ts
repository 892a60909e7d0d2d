/**
 * ServingRuntime container templates: KServe renders `{{.Name}}`, `{{.Namespace}}`,
 * `{{.Annotations.<key>}}` and `{{.Labels.<key>}}` over the InferenceService metadata with
 * Go templates. Only these field paths are supported; anything else is left untouched
 * so a runtime written for KServe never silently loses text.
 */
import type { V1Container, V1ObjectMeta } from '@kubernetes/client-node';

const FIELD = /\{\{\s*\.(Name|Namespace|Annotations\.([A-Za-z0-9_./-]+)|Labels\.([A-Za-z0-9_./-]+))\s*\}\}/g;

export function renderPlaceholders(text: string, meta: V1ObjectMeta): string {
  return text.replace(FIELD, (match, field: string, annotation?: string, label?: string) => {
    if (field === 'Name') return meta.name ?? '';
    if (field === 'Namespace') return meta.namespace ?? '';
    if (annotation !== undefined) return meta.annotations?.[annotation] ?? '';
    if (label !== undefined) return meta.labels?.[label] ?? '';
    return match;
  });
}

export function renderContainer(container: V1Container, meta: V1ObjectMeta): V1Container {
  const r = (s: string): string => renderPlaceholders(s, meta);
  return {
    ...container,
    ...(container.args ? { args: container.args.map(r) } : {}),
    ...(container.command ? { command: container.command.map(r) } : {}),
    ...(container.env ? { env: container.env.map((e) => (e.value !== undefined ? { ...e, value: r(e.value) } : e)) } : {}),
  };
}
