/**
 * onnxruntime's CUDA provider options, under the names Triton's onnxruntime backend gives
 * them, as onnx backend flags (server-wide) and config.pbtxt parameters (per model, over the
 * flags). Values are read as Triton and onnxruntime spell them (`HEURISTIC` or `1`,
 * `kSameAsRequested` or `1`, `true` or `1`) and kept in onnxruntime's own spelling; anything
 * else is refused with the values that are accepted.
 *
 * What reaches the provider is bounded by onnxruntime-node: its binding copies one field of
 * a `{ name: 'cuda', ... }` entry into OrtCUDAProviderOptionsV2, `deviceId` (device_id); the
 * other fields are not read, and `ep.cuda.*` session config entries are not read on that
 * path either (checked against onnxruntime-node 1.30.0: its session trace lists them and the
 * provider ignores even invalid values). So an option the binding cannot carry is accepted
 * at onnxruntime's default, which is what runs anyway, and any other value fails the load
 * of a model that asks for CUDA: a model never runs with settings other than the ones
 * written without saying so. `carried` flips when a binding hands the option over.
 */
import { createRequire } from 'node:module';

interface CudaOption {
  /** Flag, parameter and onnxruntime provider-option name. */
  readonly name: string;
  readonly help: string;
  readonly placeholder: string;
  /** onnxruntime's spelling of `value`, or undefined when it is none of the accepted ones. */
  parse(value: string): string | undefined;
  /** The accepted values, for the error message. */
  readonly accepted: string;
  /** onnxruntime's default, in its spelling. */
  readonly ortDefault: string;
  /** Whether onnxruntime-node hands the option to the provider. */
  readonly carried: boolean;
}

const choice = (table: Readonly<Record<string, string>>) => (value: string) => (Object.hasOwn(table, value.trim()) ? table[value.trim()] : undefined);
const flag = choice({ '1': '1', true: '1', '0': '0', false: '0' });
const wholeNumber = (value: string) => (/^\d+$/.test(value.trim()) ? String(BigInt(value.trim())) : undefined);
const gpuIndex = (value: string) => {
  const n = wholeNumber(value);
  return n !== undefined && BigInt(n) < 2n ** 31n ? n : undefined;
};

/** SIZE_MAX: onnxruntime's "no limit" for gpu_mem_limit. */
const SIZE_MAX = String(2n ** 64n - 1n);

const OPTIONS: readonly CudaOption[] = [
  {
    name: 'device_id',
    help: 'CUDA provider: the GPU a model runs on (its index as CUDA numbers them)',
    placeholder: 'N',
    parse: gpuIndex,
    accepted: 'a GPU index (0, 1, ...)',
    ortDefault: '0',
    carried: true,
  },
  {
    name: 'gpu_mem_limit',
    help: "CUDA provider: the most bytes its memory arena takes on the GPU (onnxruntime-node 1.30 cannot pass it: only onnxruntime's default, no limit)",
    placeholder: 'BYTES',
    parse: (v) => {
      const n = wholeNumber(v);
      return n === undefined || BigInt(n) === 0n || BigInt(n) > BigInt(SIZE_MAX) ? undefined : n;
    },
    accepted: `a number of bytes from 1 to ${SIZE_MAX}`,
    ortDefault: SIZE_MAX,
    carried: false,
  },
  {
    name: 'arena_extend_strategy',
    help: "CUDA provider: how its memory arena grows, kNextPowerOfTwo (0) or kSameAsRequested (1) (onnxruntime-node 1.30 cannot pass it: only onnxruntime's default)",
    placeholder: 'STRATEGY',
    parse: choice({ kNextPowerOfTwo: 'kNextPowerOfTwo', '0': 'kNextPowerOfTwo', kSameAsRequested: 'kSameAsRequested', '1': 'kSameAsRequested' }),
    accepted: 'kNextPowerOfTwo (0) or kSameAsRequested (1)',
    ortDefault: 'kNextPowerOfTwo',
    carried: false,
  },
  {
    name: 'cudnn_conv_algo_search',
    help: "CUDA provider: how cuDNN picks convolution algorithms, EXHAUSTIVE (0), HEURISTIC (1) or DEFAULT (2) (onnxruntime-node 1.30 cannot pass it: only onnxruntime's default)",
    placeholder: 'SEARCH',
    parse: choice({ EXHAUSTIVE: 'EXHAUSTIVE', '0': 'EXHAUSTIVE', HEURISTIC: 'HEURISTIC', '1': 'HEURISTIC', DEFAULT: 'DEFAULT', '2': 'DEFAULT' }),
    accepted: 'EXHAUSTIVE (0), HEURISTIC (1) or DEFAULT (2)',
    ortDefault: 'EXHAUSTIVE',
    carried: false,
  },
  {
    name: 'do_copy_in_default_stream',
    help: "CUDA provider: copy inputs and outputs on the compute stream (1) or on streams of their own (0) (onnxruntime-node 1.30 cannot pass it: only onnxruntime's default)",
    placeholder: '1|0',
    parse: flag,
    accepted: '1 (true) or 0 (false)',
    ortDefault: '1',
    carried: false,
  },
  {
    name: 'use_tf32',
    help: "CUDA provider: TF32 math for FP32 matrix products and convolutions on Ampere and newer, faster and about 1e-3 off FP32 (onnxruntime-node 1.30 cannot pass it: only onnxruntime's default, on)",
    placeholder: '1|0',
    parse: flag,
    accepted: '1 (true) or 0 (false)',
    ortDefault: '1',
    carried: false,
  },
];

/** The options a model sets, by name, in onnxruntime's spelling; unset ones are absent. */
export type CudaOptions = Readonly<Record<string, string>>;

export const CUDA_OPTION_NAMES: readonly string[] = OPTIONS.map((o) => o.name);

/** The onnx backend's flags for them: no default, so an unset flag leaves onnxruntime's. */
export const CUDA_FLAGS = OPTIONS.map((o) => ({ name: o.name, kind: 'string' as const, placeholder: o.placeholder, help: o.help }));

function option(name: string): CudaOption {
  const o = OPTIONS.find((x) => x.name === name);
  if (o === undefined) throw new TypeError(`no CUDA option ${name}`);
  return o;
}

/** `options` with `name` set from `value`; `source` names where it came from in the error. */
export function withCudaOption(options: CudaOptions, name: string, value: string, source: string): CudaOptions {
  const o = option(name);
  const parsed = o.parse(value);
  if (parsed === undefined) throw new Error(`${source}: '${value}' is not a value of ${name}; it takes ${o.accepted}`);
  return { ...options, [name]: parsed };
}

const bindingVersion = (): string => (createRequire(import.meta.url)('onnxruntime-node/package.json') as { version: string }).version;

/**
 * Throws when `options` sets an option the binding cannot hand to the provider to anything
 * but onnxruntime's default: that model would run otherwise than written. Called for models
 * whose providers include cuda.
 */
export function checkCudaOptionsCarried(options: CudaOptions): void {
  for (const o of OPTIONS) {
    const value = options[o.name];
    if (o.carried || value === undefined || value === o.ortDefault) continue;
    throw new Error(
      `${o.name}=${value} cannot be applied: onnxruntime-node ${bindingVersion()} hands the CUDA execution provider its device_id only, ` +
        `so ${o.name} stays at onnxruntime's default (${o.ortDefault}); leave it unset or set it to that`,
    );
  }
}

/** The `executionProviders` entry onnxruntime-node receives for cuda: what its binding reads. */
export function cudaProviderEntry(options: CudaOptions): { readonly name: 'cuda'; readonly deviceId: number } {
  return { name: 'cuda', deviceId: Number(options['device_id'] ?? option('device_id').ortDefault) };
}
