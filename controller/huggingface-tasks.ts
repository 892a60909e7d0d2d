/**
 * Hugging Face tasks and the runtimes that serve them. KServe's `huggingface` model format
 * covers encoders and generators alike; its huggingfaceserver learns the task from `--task`
 * in the InferenceService's args (or infers it from `config.json` at load,
 * python/huggingfaceserver/huggingfaceserver/task.py). The controller cannot read the model,
 * so it reads `--task` from the args, and a runtime that serves only some tasks says which
 * in the `serving.kserve-ts.io/tasks` annotation: runtime selection skips it for a model
 * whose task is not listed (or that names none). Runtimes without the annotation (KServe's)
 * serve every task, as in KServe.
 */
import type { ModelSpec } from './api/inference-service.js';
import type { ServingRuntime } from './api/serving-runtime.js';
import { argValue } from './model-args.js';

/** Comma-separated tasks a ServingRuntime serves (metadata annotation); absent: every task. */
export const ANN_RUNTIME_TASKS = 'serving.kserve-ts.io/tasks';

export const HUGGINGFACE_FORMAT = 'huggingface';

export type TaskFamily = 'text-encoder' | 'encoder-head' | 'generation';

/**
 * KServe's SUPPORTED_TASKS (the names `--task` takes, exact case, as `MLTask[name]` looks
 * them up), each with its family. The family says who serves it (TASK_FAMILIES).
 */
export const HUGGINGFACE_TASKS: ReadonlyMap<string, TaskFamily> = new Map<string, TaskFamily>([
  ['text_embedding', 'text-encoder'],
  ['sequence_classification', 'text-encoder'],
  ['fill_mask', 'encoder-head'],
  ['token_classification', 'encoder-head'],
  ['text_generation', 'generation'],
  ['text2text_generation', 'generation'],
]);

/** Per family: what it is and which runtimes serve it, for docs and status messages. */
export const TASK_FAMILIES: Readonly<Record<TaskFamily, { readonly what: string; readonly servedBy: string }>> = {
  'text-encoder': {
    what: 'a sentence encoder (embeddings) or a cross-encoder (rerank)',
    servedBy: "kserve-ts's text runtime (kserve-ts-text, ONNX in process) or KServe's kserve-huggingfaceserver",
  },
  'encoder-head': { what: 'an encoder with a task head', servedBy: "KServe's kserve-huggingfaceserver" },
  generation: { what: 'a generative model', servedBy: "KServe's kserve-huggingfaceserver (its vLLM backend on GPUs) or another generation runtime (vLLM, llm-d)" },
};

/** The model's `--task` (`--task=X` or `--task X`; the last one wins, as argparse). */
export function modelTask(model: ModelSpec): string | undefined {
  return argValue(model.args, 'task');
}

/**
 * KServe's huggingfaceserver downloads `--model_id` from the Hub itself; a runtime that
 * declares tasks is kserve-ts's, which reads the model from the storage-initializer's
 * folder. For it, a model with `--model_id` (and `--model_revision`) and no storage becomes
 * `storageUri: hf://ID[:REVISION]`, so the same InferenceService gets its model.
 */
export function modelIdStorageUri(runtime: ServingRuntime, model: ModelSpec): string | undefined {
  if (runtimeTasks(runtime) === undefined || model.storageUri || model.storage) return undefined;
  const id = argValue(model.args, 'model_id');
  if (!id) return undefined;
  const revision = argValue(model.args, 'model_revision');
  return `hf://${id}${revision ? `:${revision}` : ''}`;
}

/** The tasks a runtime declares; undefined when it declares none (it serves every task). */
export function runtimeTasks(runtime: ServingRuntime): string[] | undefined {
  const value = runtime.metadata.annotations?.[ANN_RUNTIME_TASKS];
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** Whether `runtime` serves the model's task: always without a declaration, else only a listed task. */
export function servesTask(runtime: ServingRuntime, model: ModelSpec): boolean {
  const declared = runtimeTasks(runtime);
  if (declared === undefined) return true;
  const task = modelTask(model);
  return task !== undefined && declared.includes(task);
}

/** Why a declaring runtime does not serve the model, for an explicitly named runtime. */
export function taskMismatch(runtime: ServingRuntime, model: ModelSpec): string {
  const task = modelTask(model);
  const serves = (runtimeTasks(runtime) ?? []).join(', ');
  return task === undefined
    ? `Specified runtime serves only the tasks ${serves}; give one with --task in the model's args`
    : `Specified runtime does not serve task '${task}' (it serves ${serves})`;
}

/**
 * What to add to "no runtime found" for a huggingface model: its task, its family and who
 * serves that family; or, without `--task`, that only a runtime inferring the task fits.
 */
export function taskNote(model: ModelSpec): string | undefined {
  if (model.modelFormat.name !== HUGGINGFACE_FORMAT) return undefined;
  const task = modelTask(model);
  if (task === undefined) {
    return `no --task in the model's args: kserve-ts-text serves huggingface models that name theirs (--task=${[...HUGGINGFACE_TASKS]
      .filter(([, f]) => f === 'text-encoder')
      .map(([t]) => t)
      .join(' or ')}); a runtime that infers the task from config.json (KServe's kserve-huggingfaceserver) serves the others`;
  }
  const family = HUGGINGFACE_TASKS.get(task);
  if (family === undefined) return `task '${task}' is not a KServe task (${[...HUGGINGFACE_TASKS.keys()].join(', ')})`;
  const { what, servedBy } = TASK_FAMILIES[family];
  return `task '${task}' is ${what}: served by ${servedBy}`;
}

/** The refusal for a `--task` KServe does not know (its `verify_task` refuses it at start-up). */
export function unknownTaskProblem(model: ModelSpec | undefined, field: string): string | undefined {
  if (model?.modelFormat?.name !== HUGGINGFACE_FORMAT) return undefined;
  const task = modelTask(model);
  if (task === undefined || HUGGINGFACE_TASKS.has(task)) return undefined;
  return `${field}.args: --task '${task}' is not supported; supported tasks are: ${[...HUGGINGFACE_TASKS.keys()].join(', ')}`;
}
