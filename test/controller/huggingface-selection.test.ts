/**
 * `modelFormat: huggingface` by task (controller/huggingface-tasks.ts): the runtimes are the
 * ones that ship — kserve-ts-text as controller/runtimes/kserve-ts.yaml declares it, and
 * KServe 0.20's kserve-huggingfaceserver as config/runtimes/kserve-huggingfaceserver.yaml
 * declares it — and the InferenceServices are written as KServe's docs write them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { InferenceService, ModelSpec } from '../../controller/api/inference-service.js';
import type { ServingRuntime } from '../../controller/api/serving-runtime.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { HUGGINGFACE_TASKS, TASK_FAMILIES, modelIdStorageUri, modelTask, unknownTaskProblem } from '../../controller/huggingface-tasks.js';
import { argValue } from '../../controller/model-args.js';
import { resolvePredictor } from '../../controller/reconcile/predictor-resolution.js';
import { selectRuntime } from '../../controller/runtime-selection.js';
import { ROOT } from '../helpers/server.js';

const shipped = parseAllDocuments(readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8')).map((d) => d.toJS() as ServingRuntime);
const kserveTsText = shipped.find((r) => r.metadata.name === 'kserve-ts-text')!;
const kserveTsOnnx = shipped.find((r) => r.metadata.name === 'kserve-ts')!;

// KServe's ClusterServingRuntime (config/runtimes/kserve-huggingfaceserver.yaml, v0.20).
const huggingfaceserver: ServingRuntime = {
  apiVersion: 'serving.kserve.io/v1alpha1',
  kind: 'ClusterServingRuntime',
  metadata: { name: 'kserve-huggingfaceserver', creationTimestamp: new Date('2026-01-01T00:00:00Z') },
  spec: {
    supportedModelFormats: [{ name: 'huggingface', version: '1', autoSelect: true, priority: 1 }],
    protocolVersions: ['v2', 'v1'],
    containers: [{ name: 'kserve-container', image: 'kserve/huggingfaceserver:v0.20.0', args: ['--model_name={{.Name}}'] }],
  },
};

const hf = (args: string[], extra: Partial<ModelSpec> = {}): ModelSpec => ({ modelFormat: { name: 'huggingface' }, args, storageUri: 'hf://org/model', ...extra });

type Row = [string, ModelSpec, ServingRuntime[], string];

describe('huggingface models: task → runtime', () => {
  const both = [huggingfaceserver, kserveTsText, kserveTsOnnx];
  const rows: Row[] = [
    ['text_embedding → kserve-ts-text (priority 3 over KServe 1)', hf(['--model_name=bge', '--task=text_embedding']), both, 'kserve-ts-text'],
    ['the `--task X` spelling', hf(['--task', 'text_embedding']), both, 'kserve-ts-text'],
    ['sequence_classification (a cross-encoder for rerank) → kserve-ts-text', hf(['--task=sequence_classification']), both, 'kserve-ts-text'],
    ['the last --task wins, as argparse', hf(['--task=text_generation', '--task=text_embedding']), both, 'kserve-ts-text'],
    ['text_generation → KServe', hf(['--model_name=llama', '--task=text_generation']), both, 'kserve-huggingfaceserver'],
    ['text2text_generation → KServe', hf(['--task=text2text_generation']), both, 'kserve-huggingfaceserver'],
    ['fill_mask → KServe', hf(['--task=fill_mask']), both, 'kserve-huggingfaceserver'],
    ['token_classification → KServe', hf(['--task=token_classification']), both, 'kserve-huggingfaceserver'],
    ['no --task (KServe infers it from config.json) → KServe', hf(['--model_name=gpt2']), both, 'kserve-huggingfaceserver'],
    ['--backend=vllm with a generation task → KServe', hf(['--backend=vllm', '--task=text_generation']), both, 'kserve-huggingfaceserver'],
    ['text_embedding with only kserve-ts installed', hf(['--task=text_embedding']), [kserveTsText, kserveTsOnnx], 'kserve-ts-text'],
    ['text_generation with only kserve-ts installed', hf(['--task=text_generation']), [kserveTsText, kserveTsOnnx], 'NoSupportingRuntime'],
    ['no --task with only kserve-ts installed', hf([]), [kserveTsText], 'NoSupportingRuntime'],
    ['text_embedding over grpc-v2: only kserve-ts speaks it', hf(['--task=text_embedding'], { protocolVersion: 'grpc-v2' }), both, 'kserve-ts-text'],
    ['an onnx model is unaffected by the task rule', { modelFormat: { name: 'onnx' }, args: ['--task=text_generation'] }, both, 'kserve-ts'],
    ['explicit kserve-huggingfaceserver for an embedding', hf(['--task=text_embedding'], { runtime: 'kserve-huggingfaceserver' }), both, 'kserve-huggingfaceserver'],
    ['explicit kserve-ts-text for generation is refused', hf(['--task=text_generation'], { runtime: 'kserve-ts-text' }), both, 'NoSupportingRuntime'],
  ];

  it.each(rows)('%s', (_name, model, cluster, expected) => {
    const r = selectRuntime(model, { namespaced: [], cluster });
    expect(r.ok ? r.runtime.metadata.name : r.reason).toBe(expected);
  });

  it('an explicit runtime that does not serve the task says which it serves', () => {
    const r = selectRuntime(hf(['--task=text_generation'], { runtime: 'kserve-ts-text' }), { namespaced: [], cluster: [kserveTsText] });
    expect(r).toEqual({
      ok: false,
      reason: 'NoSupportingRuntime',
      message: "Specified runtime does not serve task 'text_generation' (it serves text_embedding, sequence_classification)",
    });
    const none = selectRuntime(hf([], { runtime: 'kserve-ts-text' }), { namespaced: [], cluster: [kserveTsText] });
    expect(none.ok ? '' : none.message).toBe("Specified runtime serves only the tasks text_embedding, sequence_classification; give one with --task in the model's args");
  });

  it('every KServe task has a family, and every family says who serves it', () => {
    // KServe 0.20's SUPPORTED_TASKS (huggingfaceserver/task.py).
    expect([...HUGGINGFACE_TASKS.keys()].sort()).toEqual([
      'fill_mask',
      'sequence_classification',
      'text2text_generation',
      'text_embedding',
      'text_generation',
      'token_classification',
    ]);
    for (const family of HUGGINGFACE_TASKS.values()) expect(TASK_FAMILIES[family].servedBy).not.toBe('');
    // The shipped runtime declares exactly the text-encoder family.
    const declared = kserveTsText.metadata.annotations?.['serving.kserve-ts.io/tasks']?.split(',');
    expect(declared).toEqual([...HUGGINGFACE_TASKS].filter(([, f]) => f === 'text-encoder').map(([t]) => t));
  });

  it('reads flags as argparse does', () => {
    expect(argValue(['--task=a', '--task', 'b'], 'task')).toBe('b');
    expect(argValue(['--task'], 'task')).toBeUndefined();
    expect(argValue(['--tasks=a', '--task_x=b'], 'task')).toBeUndefined();
    expect(argValue(undefined, 'task')).toBeUndefined();
    expect(argValue([7, '--task=x'] as unknown as string[], 'task')).toBe('x');
    expect(modelTask(hf(['--model_id=a/b', '--task=text_embedding']))).toBe('text_embedding');
  });
});

describe('huggingface models: the predictor plan', () => {
  const config = parseInferenceServiceConfig({ storageInitializer: '{"image": "kserve-ts-storage-initializer:0.1.0"}' });
  const isvc = (model: ModelSpec): InferenceService => ({
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'emb', namespace: 'ns' },
    spec: { predictor: { model } },
  });
  const both = { namespaced: [], cluster: [huggingfaceserver, kserveTsText, kserveTsOnnx] };

  it("KServe's embedding args run kserve-ts's server with the runtime's flags first, the model's after", () => {
    const r = resolvePredictor(isvc(hf(['--model_name=bge', '--task=text_embedding', '--max_length=256'])), config, both);
    expect(r.ok && r.runtime).toEqual({ name: 'kserve-ts-text', scope: 'cluster' });
    const main = r.ok ? r.plan.podSpec.containers[0] : undefined;
    expect(main?.image).toBe('kserve-ts-server:0.1.0');
    expect(main?.args).toEqual([
      '--model_name=emb',
      '--model_dir=/mnt/models',
      '--http_port=8080',
      '--grpc_port=8081',
      '--model_name=bge',
      '--task=text_embedding',
      '--max_length=256',
    ]);
  });

  it('--model_id without storage becomes an hf:// storage URI for kserve-ts-text (with --model_revision)', () => {
    const model = hf(['--model_id=BAAI/bge-small-en-v1.5', '--model_revision=v1', '--task=text_embedding'], { storageUri: undefined });
    expect(modelIdStorageUri(kserveTsText, model)).toBe('hf://BAAI/bge-small-en-v1.5:v1');
    const r = resolvePredictor(isvc(model), config, both);
    expect(r.ok && r.plan.podAnnotations['internal.serving.kserve.io/storage-initializer-sourceuri']).toBe('hf://BAAI/bge-small-en-v1.5:v1');
    // KServe's runtime downloads --model_id itself: nothing is added for it.
    expect(modelIdStorageUri(huggingfaceserver, model)).toBeUndefined();
    const gen = resolvePredictor(isvc(hf(['--model_id=gpt2/gpt2', '--task=text_generation'], { storageUri: undefined })), config, both);
    expect(gen.ok && gen.plan.podAnnotations['internal.serving.kserve.io/storage-initializer-sourceuri']).toBeUndefined();
    // A storageUri the user wrote wins.
    expect(modelIdStorageUri(kserveTsText, hf(['--model_id=a/b']))).toBeUndefined();
  });

  it('no runtime for a generation task says what the task is and who serves it', () => {
    const r = resolvePredictor(isvc(hf(['--task=text_generation'])), config, { namespaced: [], cluster: [kserveTsText, kserveTsOnnx] });
    expect(r).toEqual({
      ok: false,
      reason: 'NoSupportingRuntime',
      message:
        "No runtime found to support specified framework/version (model format 'huggingface', protocol 'v1'; task 'text_generation' is a generative model: served by KServe's kserve-huggingfaceserver (its vLLM backend on GPUs) or another generation runtime (vLLM, llm-d))",
    });
  });

  it('no runtime for a model without --task says how to name one', () => {
    const r = resolvePredictor(isvc(hf([])), config, { namespaced: [], cluster: [kserveTsText] });
    expect(r.ok ? '' : r.message).toContain(
      "no --task in the model's args: kserve-ts-text serves huggingface models that name theirs (--task=text_embedding or sequence_classification); a runtime that infers the task from config.json (KServe's kserve-huggingfaceserver) serves the others",
    );
  });

  it("the webhook's refusal of a task KServe does not know", () => {
    expect(unknownTaskProblem(hf(['--task=text-embedding']), 'spec.predictor.model')).toBe(
      "spec.predictor.model.args: --task 'text-embedding' is not supported; supported tasks are: text_embedding, sequence_classification, fill_mask, token_classification, text_generation, text2text_generation",
    );
    expect(unknownTaskProblem(hf(['--task=text_embedding']), 'spec.predictor.model')).toBeUndefined();
    expect(unknownTaskProblem({ modelFormat: { name: 'custom' }, args: ['--task=anything'] }, 'spec.predictor.model')).toBeUndefined();
  });
});
