/**
 * RFC 6902 JSON Patch: a diff from one JSON document to another, and an applier.
 *
 * Admission webhooks answer with the patch that turns the object the API server sent into
 * the mutated one, so mutators work on a copy and never build patch operations by hand
 * (KServe's `admission.PatchResponseFromRaw` does the same). The diff is not minimal for
 * insertions in the middle of an array (it replaces the tail element by element), which
 * is fine for webhooks: their arrays grow at the end.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonPatchOperation = { op: 'add'; path: string; value: JsonValue } | { op: 'remove'; path: string } | { op: 'replace'; path: string; value: JsonValue };

/** RFC 6901: `~` → `~0`, `/` → `~1` (annotation keys contain slashes). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON has no `undefined`: a key holding it counts as absent, as JSON.stringify would. */
function present(obj: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined;
}

/** A JSON copy of a value, dropping `undefined` members as serialization would. */
export function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/** Operations that turn `from` into `to`. */
export function diff(from: unknown, to: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  walk(from, to, '', ops);
  return ops;
}

function walk(from: unknown, to: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      if (present(from, key) && !present(to, key)) ops.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
    }
    for (const key of Object.keys(to)) {
      if (!present(to, key)) continue;
      const child = `${path}/${escapePointerToken(key)}`;
      if (present(from, key)) walk(from[key], to[key], child, ops);
      else ops.push({ op: 'add', path: child, value: toJson(to[key]) });
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to)) {
    const common = Math.min(from.length, to.length);
    for (let i = 0; i < common; i++) walk(from[i], to[i], `${path}/${i}`, ops);
    for (let i = common; i < to.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: toJson(to[i]) });
    // Highest index first, so earlier removals do not shift the later ones.
    for (let i = from.length - 1; i >= common; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    return;
  }
  // Two objects or two arrays were handled above: anything else differs unless identical.
  if (from !== to) ops.push({ op: 'replace', path, value: toJson(to) });
}

export class JsonPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchError';
  }
}

/** Applies add/remove/replace operations to a copy of `doc` (what the API server does with our answer). */
export function applyPatch(doc: unknown, ops: readonly JsonPatchOperation[]): JsonValue {
  let root: JsonValue = toJson(doc);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') throw new JsonPatchError('cannot remove the document root');
      root = toJson(op.value);
      continue;
    }
    const tokens = op.path.split('/').slice(1).map(unescapePointerToken);
    const last = tokens.pop() as string;
    let parent: JsonValue = root;
    for (const token of tokens) {
      const next: JsonValue | undefined = Array.isArray(parent) ? parent[arrayIndex(token, parent.length - 1, op.path)] : isObject(parent) ? parent[token] : undefined;
      if (next === undefined || next === null || typeof next !== 'object') throw new JsonPatchError(`path '${op.path}' does not exist`);
      parent = next;
    }
    if (Array.isArray(parent)) {
      if (op.op === 'add') {
        const i = last === '-' ? parent.length : arrayIndex(last, parent.length, op.path);
        parent.splice(i, 0, toJson(op.value));
      } else {
        const i = arrayIndex(last, parent.length - 1, op.path);
        if (op.op === 'remove') parent.splice(i, 1);
        else parent[i] = toJson(op.value);
      }
    } else if (isObject(parent)) {
      if (op.op !== 'add' && !present(parent, last)) throw new JsonPatchError(`path '${op.path}' does not exist`);
      if (op.op === 'remove') delete parent[last];
      else parent[last] = toJson(op.value);
    } else {
      throw new JsonPatchError(`path '${op.path}' does not exist`);
    }
  }
  return root;
}

function arrayIndex(token: string, max: number, path: string): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new JsonPatchError(`'${token}' in '${path}' is not an array index`);
  const i = Number(token);
  if (i > max) throw new JsonPatchError(`index ${i} in '${path}' is out of range`);
  return i;
}
