/**
 * KServe huggingfaceserver's own flags (python/huggingfaceserver/huggingfaceserver/__main__.py),
 * so that an InferenceService written for KServe's `huggingface` runtime, args included,
 * starts kserve-ts's text runtime unchanged. `--task` and `--backend` are checked at start-up:
 * a task or backend kserve-ts does not serve is an error that says where it belongs, rather
 * than a server that loads and then answers something else. The others are accepted and
 * warned about once, each with why it has no effect. The model folder decides what a text
 * model is (docs/openai.md); `--task` states what the user expects of it.
 */
import { FlagError, type FlagKind, type FlagSpec, type Flags, inertFlag } from '../cli/flags.js';

/** The tasks kserve-ts serves, with what serves them (KServe's task names). */
export const SERVED_TASKS: ReadonlyMap<string, string> = new Map([
  ['text_embedding', 'an embedding model folder, on /openai/v1/embeddings and V2'],
  ['sequence_classification', 'a one-label cross-encoder folder, on /openai/v1/rerank and V2'],
]);

/** KServe's `--backend` values this server stands in for: it runs the ONNX graph itself. */
const SERVED_BACKENDS: readonly string[] = ['auto', 'huggingface'];

const MAX_LENGTH_WHY = "the max length is the model folder's (sentence_bert_config.json max_seq_length, else tokenizer_config.json model_max_length)";

/** [flag, kind, why it has no effect here]: `bool` for argparse's store_true flags. */
const INERT_HUGGINGFACE_FLAGS: readonly (readonly [string, FlagKind, string])[] = [
  ['model_id', 'string', 'the model is read from --model_dir; the controller turns --model_id into storageUri hf://ID for the storage-initializer'],
  ['model_revision', 'string', 'the controller puts the revision into the hf:// storage URI (hf://ID:REVISION)'],
  ['tokenizer_revision', 'string', "the tokenizer is the model folder's tokenizer.json"],
  ['max_length', 'int', MAX_LENGTH_WHY],
  ['max_model_len', 'int', MAX_LENGTH_WHY],
  ['dtype', 'string', "the ONNX graph's own types are used"],
  ['disable_lower_case', 'bool', "tokenizer.json's normalizer decides lower-casing"],
  ['disable_special_tokens', 'bool', "special tokens are tokenizer.json's post-processor's (send token ids to embed without them)"],
  ['trust_remote_code', 'bool', 'no model code is run: the ONNX graph is the model'],
  ['tensor_input_names', 'string', "the graph's own inputs are fed (input_ids, attention_mask, token_type_ids)"],
  ['return_token_type_ids', 'bool', 'token_type_ids are fed when the graph has that input'],
  ['return_probabilities', 'bool', 'rerank scores are the sigmoid of the logit, as sentence-transformers'],
  ['disable_log_requests', 'bool', 'request contents are never logged; --logger_url sends them as CloudEvents'],
  ['max_log_len', 'int', 'request contents are never logged'],
];

export const HUGGINGFACE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'task',
    kind: 'string',
    dflt: '',
    placeholder: 'TASK',
    help: `KServe huggingfaceserver's task: ${[...SERVED_TASKS.keys()].join(' or ')} (the model folder decides which it is; other tasks are refused)`,
  },
  { name: 'backend', kind: 'string', dflt: 'auto', placeholder: 'NAME', help: `KServe huggingfaceserver's backend: ${SERVED_BACKENDS.join(' or ')} (ONNX Runtime in process)` },
  ...INERT_HUGGINGFACE_FLAGS.map(([name, kind, why]) => inertFlag(name, why, kind)),
];

/** Throws FlagError for a `--task` or `--backend` this server does not serve. */
export function checkHuggingfaceFlags(flags: Flags): void {
  const task = flags.string('task');
  if (task !== '' && !SERVED_TASKS.has(task)) {
    const served = [...SERVED_TASKS].map(([t, what]) => `${t} (${what})`).join(', ');
    throw new FlagError(
      `--task '${task}' is not served by kserve-ts, which serves ${served}; generation and the other Hugging Face tasks belong on KServe's huggingfaceserver or a vLLM runtime`,
    );
  }
  const backend = flags.string('backend');
  if (!SERVED_BACKENDS.includes(backend)) {
    throw new FlagError(`--backend '${backend}' is KServe huggingfaceserver's; kserve-ts runs the model with ONNX Runtime in process (--backend ${SERVED_BACKENDS.join(' or ')})`);
  }
}
