/**
 * The onnx backend's own options: its server flags (parsed once at start-up) and the
 * config.pbtxt parameters a model may override them with. Nothing outside this backend
 * reads them.
 */
import { FlagError, type FlagSpec, type Flags } from '../../../cli/flags.js';
import { type ParameterReader, applyParameters, integerParameter, listParameter } from '../../backend/backend-parameters.js';
import { CUDA_FLAGS, CUDA_OPTION_NAMES, type CudaOptions, checkCudaOptionsCarried, withCudaOption } from './cuda-options.js';

export const PROVIDERS = ['cpu', 'cuda'] as const;

export const ONNX_FLAGS: readonly FlagSpec[] = [
  { name: 'execution_providers', kind: 'list', dflt: 'cpu', placeholder: 'LIST', help: 'onnxruntime providers in order of preference, e.g. cuda,cpu' },
  {
    name: 'inline_max_us',
    kind: 'int',
    dflt: '100',
    help: 'a model whose batch-1 inference takes at most this many µs also runs small requests on the main thread, skipping the worker hand-off; 0 = always a worker thread',
  },
  { name: 'inter_op_threads', kind: 'int', dflt: '1', help: 'threads across independent operators' },
  {
    name: 'enable_ort_telemetry',
    kind: 'bool',
    dflt: 'false',
    help: 'let onnxruntime send its usage telemetry to Microsoft (off: the server makes no outbound connection)',
  },
  ...CUDA_FLAGS,
];

/** Server-wide: from the flags. */
export interface OnnxSettings {
  /** Ordered preference, e.g. ['cuda', 'cpu']; a session falls back along the list. */
  readonly executionProviders: readonly string[];
  readonly interOpThreads: number;
  /**
   * A model whose warm-up inference takes at most this many microseconds may also run small
   * requests on the main thread (no worker hand-off); 0 keeps every request off the event loop.
   */
  readonly inlineMaxMicros: number;
  /** onnxruntime's own telemetry (an upload to Microsoft); off unless asked for. */
  readonly telemetry: boolean;
  /** CUDA provider options the flags set (cuda-options.ts). */
  readonly cuda: CudaOptions;
}

/** Per model: the settings with its config.pbtxt overrides. */
export interface OnnxOptions {
  readonly executionProviders: readonly string[];
  /** config.pbtxt `intra_op_thread_count`; undefined = the server's thread budget. */
  readonly intraOpThreads: number | undefined;
  readonly interOpThreads: number;
  readonly inlineMaxMicros: number;
  /** The flags' CUDA provider options with the model's parameters over them. */
  readonly cuda: CudaOptions;
}

function providers(source: string, list: readonly string[]): string[] {
  const out = list.map((p) => p.toLowerCase());
  for (const p of out) {
    if (!(PROVIDERS as readonly string[]).includes(p)) throw new FlagError(`${source}: unknown provider '${p}' (${PROVIDERS.join(', ')})`);
  }
  return out;
}

/** A CUDA option problem found in the flags is a start-up error. */
function asFlagError<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    throw new FlagError((e as Error).message);
  }
}

export function onnxSettings(flags: Flags): OnnxSettings {
  const eps = providers('--execution_providers', flags.list('execution_providers'));
  const executionProviders = eps.length > 0 ? eps : ['cpu'];
  let cuda: CudaOptions = {};
  for (const name of CUDA_OPTION_NAMES) {
    if (flags.given(name)) cuda = asFlagError(() => withCudaOption(cuda, name, flags.string(name), `--${name}`));
  }
  if (executionProviders.includes('cuda')) asFlagError(() => checkCudaOptionsCarried(cuda));
  return {
    executionProviders,
    interOpThreads: Math.max(1, flags.int('inter_op_threads')),
    inlineMaxMicros: flags.int('inline_max_us'),
    telemetry: flags.bool('enable_ort_telemetry'),
    cuda,
  };
}

const PARAMETERS: Readonly<Record<string, ParameterReader<OnnxOptions>>> = {
  execution_providers: (v, o) => ({ ...o, executionProviders: providers('config.pbtxt: parameter execution_providers', listParameter(v)) }),
  intra_op_thread_count: (v, o) => ({ ...o, intraOpThreads: integerParameter('intra_op_thread_count', v) }),
  inter_op_thread_count: (v, o) => ({ ...o, interOpThreads: integerParameter('inter_op_thread_count', v) }),
  ...Object.fromEntries(
    CUDA_OPTION_NAMES.map((name): [string, ParameterReader<OnnxOptions>] => [name, (v, o) => ({ ...o, cuda: withCudaOption(o.cuda, name, v, `config.pbtxt: parameter ${name}`) })]),
  ),
};

export function onnxModelOptions(settings: OnnxSettings, parameters: ReadonlyMap<string, string>): OnnxOptions {
  const base: OnnxOptions = {
    executionProviders: settings.executionProviders,
    intraOpThreads: undefined,
    interOpThreads: settings.interOpThreads,
    inlineMaxMicros: settings.inlineMaxMicros,
    cuda: settings.cuda,
  };
  const options = applyParameters('onnx', base, parameters, PARAMETERS);
  if (options.executionProviders.includes('cuda')) checkCudaOptionsCarried(options.cuda);
  return options;
}
