/**
 * A flag's value in a model's `args`, as the Python runtimes' argparse reads it: `--name=X`
 * or `--name X`, the last occurrence winning. For the controller's decisions that depend on
 * what an InferenceService passes to its runtime (huggingface-tasks.ts).
 */
export function argValue(args: readonly string[] | undefined, name: string): string | undefined {
  // The webhooks call this before the API server's schema check: tolerate any shape.
  const list: readonly unknown[] = Array.isArray(args) ? args : [];
  const flag = `--${name}`;
  let value: string | undefined;
  list.forEach((arg, i) => {
    const next = list[i + 1];
    if (typeof arg !== 'string') return;
    if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
    else if (arg === flag && typeof next === 'string') value = next;
  });
  return value;
}
