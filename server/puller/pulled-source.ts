/**
 * The repository's model source when the puller manages `--model_dir`: one folder per model
 * under it, but only the models the puller has put in place. The repository lists none at
 * start-up (the puller loads each as it arrives) and a load request for a name the puller does
 * not hold is a 404, so a leftover or half-written folder is never served by accident.
 */
import path from 'node:path';
import type { ModelSource } from '../repository/model-source.js';

export function pulledModelSource(root: string, placed: ReadonlySet<string>): ModelSource {
  return {
    root,
    list: async () => [],
    locate: async (name) => (placed.has(name) ? path.join(root, name) : undefined),
  };
}
