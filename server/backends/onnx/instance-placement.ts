/**
 * Where one instance of a version's instance group runs (config.pbtxt `instance_group`,
 * LoadSpec.instance), in onnxruntime's terms:
 * - KIND_AUTO (or no group): the model's execution providers as configured.
 * - KIND_CPU: the CPU provider only, whatever the model's list says, as Triton runs a
 *   KIND_CPU instance on the CPU.
 * - KIND_GPU: the CUDA provider first: the model's list when it names cuda, else cuda in
 *   front of it (the default `cpu` becomes `cuda,cpu`), so the fallback rules of
 *   execution-providers.ts and onnx-runner.ts apply on a machine without CUDA; with `gpus`,
 *   the instance's device is the CUDA provider's device_id.
 * An instance of a group of several never gets a main-thread (inline) session: the
 * instances are the parallelism the model asked for, and an inline run would bypass them.
 */
import type { InstanceSpec } from '../../backend/backend.js';
import { checkCudaOptionsCarried, withCudaOption } from './cuda-options.js';
import type { OnnxOptions } from './onnx-options.js';

export function placeInstance(options: OnnxOptions, instance: InstanceSpec | undefined): OnnxOptions {
  if (instance === undefined) return options;
  const inlineMaxMicros = instance.count > 1 ? 0 : options.inlineMaxMicros;
  if (instance.kind === 'cpu') return { ...options, executionProviders: ['cpu'], inlineMaxMicros };
  if (instance.kind === 'auto') return { ...options, inlineMaxMicros };
  const listed = options.executionProviders;
  const executionProviders = listed.includes('cuda') ? listed : ['cuda', ...listed];
  const cuda = instance.gpu === undefined ? options.cuda : withCudaOption(options.cuda, 'device_id', String(instance.gpu), 'config.pbtxt: instance_group gpus');
  checkCudaOptionsCarried(cuda);
  return { ...options, executionProviders, cuda, inlineMaxMicros };
}
