/**
 * The CUDA provider options as a Triton user writes them: flags and config.pbtxt parameters,
 * every spelling Triton and onnxruntime accept, bad values refused naming the good ones, and
 * what onnxruntime-node receives. onnxruntime-node hands the provider its device_id only, so
 * the others are accepted at onnxruntime's default and any other value fails for a CUDA
 * model (cuda-options.ts); test/cuda-fallback.test.ts runs the same through real servers.
 */
import { describe, expect, it } from 'vitest';
import { FlagError } from '../../../cli/flags.js';
import { BackendSettings } from '../../backend/backend-settings.js';
import { parseServeArgs } from '../../config.js';
import { defaultBackends } from '../../server.js';
import { cudaProviderEntry, withCudaOption } from './cuda-options.js';
import { type OnnxSettings, onnxModelOptions, onnxSettings } from './onnx-options.js';
import { sessionOptions } from './onnx-runner.js';

const backends = defaultBackends();
const settings = (argv: string[]): OnnxSettings => {
  const { config } = parseServeArgs(argv, {}, backends.flags());
  new BackendSettings(backends, config.flags);
  return onnxSettings(config.flags);
};
const model = (s: OnnxSettings, params: Record<string, string>) => onnxModelOptions(s, new Map(Object.entries(params)));

describe('CUDA provider options', () => {
  it.each([
    ['device_id', '0', '0'],
    ['device_id', '3', '3'],
    ['gpu_mem_limit', '1073741824', '1073741824'],
    ['gpu_mem_limit', '18446744073709551615', '18446744073709551615'],
    ['arena_extend_strategy', 'kNextPowerOfTwo', 'kNextPowerOfTwo'],
    ['arena_extend_strategy', '0', 'kNextPowerOfTwo'],
    ['arena_extend_strategy', 'kSameAsRequested', 'kSameAsRequested'],
    ['arena_extend_strategy', '1', 'kSameAsRequested'],
    ['cudnn_conv_algo_search', 'EXHAUSTIVE', 'EXHAUSTIVE'],
    ['cudnn_conv_algo_search', '0', 'EXHAUSTIVE'],
    ['cudnn_conv_algo_search', 'HEURISTIC', 'HEURISTIC'],
    ['cudnn_conv_algo_search', '1', 'HEURISTIC'],
    ['cudnn_conv_algo_search', 'DEFAULT', 'DEFAULT'],
    ['cudnn_conv_algo_search', '2', 'DEFAULT'],
    ['do_copy_in_default_stream', 'true', '1'],
    ['do_copy_in_default_stream', '0', '0'],
    ['use_tf32', 'false', '0'],
    ['use_tf32', '1', '1'],
  ])('%s=%s is read as onnxruntime spells it (%s)', (name, value, expected) => {
    expect(withCudaOption({}, name, value, 'test')).toEqual({ [name]: expected });
  });

  it.each([
    ['device_id', '-1', 'a GPU index'],
    ['device_id', 'gpu0', 'a GPU index'],
    ['device_id', '2147483648', 'a GPU index'],
    ['gpu_mem_limit', '0', 'a number of bytes from 1 to 18446744073709551615'],
    ['gpu_mem_limit', '1G', 'a number of bytes'],
    ['gpu_mem_limit', '18446744073709551616', 'a number of bytes'],
    ['arena_extend_strategy', 'kDouble', 'kNextPowerOfTwo (0) or kSameAsRequested (1)'],
    ['cudnn_conv_algo_search', 'FASTEST', 'EXHAUSTIVE (0), HEURISTIC (1) or DEFAULT (2)'],
    ['cudnn_conv_algo_search', 'heuristic', 'EXHAUSTIVE (0), HEURISTIC (1) or DEFAULT (2)'],
    ['cudnn_conv_algo_search', '3', 'EXHAUSTIVE (0), HEURISTIC (1) or DEFAULT (2)'],
    ['do_copy_in_default_stream', 'yes', '1 (true) or 0 (false)'],
    ['use_tf32', '2', '1 (true) or 0 (false)'],
  ])('%s=%s is refused, naming what it takes', (name, value, accepted) => {
    expect(() => withCudaOption({}, name, value, 'config.pbtxt: parameter x')).toThrow(`config.pbtxt: parameter x: '${value}' is not a value of ${name}; it takes ${accepted}`);
  });

  it('flags set the server-wide options; a bad value is a start-up error', () => {
    expect(settings(['--device_id', '2', '--cudnn_conv_algo_search', '1']).cuda).toEqual({ device_id: '2', cudnn_conv_algo_search: 'HEURISTIC' });
    expect(() => settings(['--cudnn_conv_algo_search', 'FASTEST'])).toThrow(FlagError);
    expect(() => settings(['--cudnn_conv_algo_search', 'FASTEST'])).toThrow("--cudnn_conv_algo_search: 'FASTEST' is not a value of cudnn_conv_algo_search");
    expect(() => settings(['--use_tf32', 'maybe'])).toThrow(/--use_tf32: 'maybe' is not a value of use_tf32; it takes 1 \(true\) or 0 \(false\)/);
  });

  it('config.pbtxt parameters override the flags per model; a bad value fails that model', () => {
    const s = settings(['--device_id', '2', '--execution_providers', 'cuda,cpu']);
    expect(model(s, {}).cuda).toEqual({ device_id: '2' });
    expect(model(s, { device_id: '1' }).cuda).toEqual({ device_id: '1' });
    expect(() => model(s, { arena_extend_strategy: 'kDouble' })).toThrow(
      "config.pbtxt: parameter arena_extend_strategy: 'kDouble' is not a value of arena_extend_strategy; it takes kNextPowerOfTwo (0) or kSameAsRequested (1)",
    );
  });

  it("device_id reaches the options onnxruntime receives, as the binding reads it: the cuda entry's deviceId", () => {
    const s = settings(['--execution_providers', 'cuda,cpu', '--device_id', '1']);
    const options = model(s, { device_id: '3' });
    const session = sessionOptions(
      { modelPath: 'm.onnx', executionProviders: ['cuda', 'cpu'], cudaProvider: cudaProviderEntry(options.cuda), intraOpThreads: 1, interOpThreads: 1 },
      ['cuda', 'cpu'],
    );
    expect(session.executionProviders).toEqual([{ name: 'cuda', deviceId: 3 }, 'cpu']);
    expect(cudaProviderEntry({})).toEqual({ name: 'cuda', deviceId: 0 });
  });

  it("options the binding cannot carry: onnxruntime's default is accepted, any other value fails a CUDA model and nothing else", () => {
    const cuda = settings(['--execution_providers', 'cuda,cpu']);
    for (const [name, dflt] of [
      ['gpu_mem_limit', '18446744073709551615'],
      ['arena_extend_strategy', 'kNextPowerOfTwo'],
      ['cudnn_conv_algo_search', 'EXHAUSTIVE'],
      ['do_copy_in_default_stream', '1'],
      ['use_tf32', '1'],
    ] as const) {
      expect(model(cuda, { [name]: dflt }).cuda).toEqual({ [name]: dflt });
    }
    for (const [name, value] of [
      ['gpu_mem_limit', '1073741824'],
      ['arena_extend_strategy', 'kSameAsRequested'],
      ['cudnn_conv_algo_search', 'HEURISTIC'],
      ['do_copy_in_default_stream', '0'],
      ['use_tf32', '0'],
    ] as const) {
      expect(() => model(cuda, { [name]: value })).toThrow(
        new RegExp(`^${name}=${value} cannot be applied: onnxruntime-node \\d+\\.\\d+\\.\\d+ hands the CUDA execution provider its device_id only`),
      );
      // A model on the cpu alone has no CUDA provider to configure.
      expect(model(cuda, { [name]: value, execution_providers: 'cpu' }).cuda).toMatchObject({ [name]: expect.any(String) });
    }
    // From the flags, with cuda among the providers: at start-up.
    expect(() => settings(['--execution_providers', 'cuda', '--use_tf32', '0'])).toThrow(FlagError);
    expect(settings(['--execution_providers', 'cpu', '--use_tf32', '0']).cuda).toEqual({ use_tf32: '0' });
  });
});
