/**
 * The portable engine: TF.js graph models (model.json + weight shards) on the WASM backend of
 * @tensorflow/tfjs. The .wasm binaries are read from the installed npm package, never fetched.
 * Signatures: `signature` in model.json is `serving_default`; further ones may be listed in
 * `userDefinedMetadata.signatures`, keyed by name, in the same form.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { DEFAULT_SIGNATURE, type Engine, type TfTensor, defaultFirst } from './tf-engine.js';
import type { WireSignature, WireSpec, WorkerSettings } from './tf-messages.js';

interface SigEntry {
  name?: string;
  dtype?: string;
  tensorShape?: { dim?: Array<{ size?: string | number }>; unknownRank?: boolean };
}
interface SigDef {
  inputs?: Record<string, SigEntry>;
  outputs?: Record<string, SigEntry>;
}
interface ModelJson {
  format?: string;
  modelTopology?: unknown;
  signature?: SigDef;
  userDefinedMetadata?: { signatures?: Record<string, SigDef> };
  weightsManifest?: Array<{ paths: string[]; weights: tf.io.WeightsManifestEntry[] }>;
}

function specs(entries: Record<string, SigEntry> | undefined): WireSpec[] {
  return Object.entries(entries ?? {}).map(([alias, e]) => ({
    name: alias,
    dtype: e.dtype ?? 'DT_INVALID',
    shape: e.tensorShape?.unknownRank ? [] : (e.tensorShape?.dim ?? []).map((d) => Number(d.size ?? -1)),
    tensor: e.name ?? `${alias}:0`,
  }));
}

function signaturesOf(json: ModelJson, model: tf.GraphModel): WireSignature[] {
  const out: WireSignature[] = [];
  if (json.signature?.inputs !== undefined) {
    out.push({ name: DEFAULT_SIGNATURE, inputs: specs(json.signature.inputs), outputs: specs(json.signature.outputs) });
  } else {
    // No signature: the graph's placeholders and sinks, as TF.js itself sees them.
    const info = (ts: tf.ModelTensorInfo[]): WireSpec[] =>
      ts.map((t) => ({ name: t.name, dtype: `DT_${t.dtype === 'float32' ? 'FLOAT' : t.dtype.toUpperCase()}`, shape: t.shape ?? [], tensor: t.name }));
    out.push({ name: DEFAULT_SIGNATURE, inputs: info(model.inputs), outputs: info(model.outputs) });
  }
  for (const [name, def] of Object.entries(json.userDefinedMetadata?.signatures ?? {})) {
    if (name !== DEFAULT_SIGNATURE) out.push({ name, inputs: specs(def.inputs), outputs: specs(def.outputs) });
  }
  return defaultFirst(out);
}

async function artifacts(modelJsonPath: string): Promise<{ json: ModelJson; handler: tf.io.IOHandler }> {
  const json = JSON.parse(await readFile(modelJsonPath, 'utf8')) as ModelJson;
  if (json.modelTopology === undefined) throw new Error(`${modelJsonPath} has no modelTopology; it is not a TF.js model`);
  const dir = path.dirname(modelJsonPath);
  const weightSpecs: tf.io.WeightsManifestEntry[] = [];
  const shards: Buffer[] = [];
  for (const group of json.weightsManifest ?? []) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) shards.push(await readFile(path.join(dir, p)));
  }
  const all = Buffer.concat(shards);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  const { modelTopology, format, signature, userDefinedMetadata } = json;
  return {
    json,
    handler: {
      load: async (): Promise<tf.io.ModelArtifacts> => ({
        modelTopology: modelTopology as tf.io.ModelArtifacts['modelTopology'],
        format,
        signature: signature,
        userDefinedMetadata: userDefinedMetadata as tf.io.ModelArtifacts['userDefinedMetadata'],
        weightSpecs,
        weightData,
      }),
    },
  };
}

/** Runs each signature once on placeholder values, to surface missing kernels at load time. */
async function warmUp(engine: Engine): Promise<void> {
  for (const sig of engine.signatures) {
    const feeds: Record<string, TfTensor> = {};
    for (const i of sig.inputs) {
      const shape = i.shape.map((d) => (d < 0 ? 1 : d));
      feeds[i.name] =
        i.dtype === 'DT_STRING'
          ? tf.fill(shape, '', 'string')
          : tf.zeros(shape, i.dtype === 'DT_BOOL' ? 'bool' : i.dtype === 'DT_FLOAT' || i.dtype === 'DT_DOUBLE' ? 'float32' : 'int32');
    }
    const out = await engine.run(
      sig,
      feeds,
      sig.outputs.map((o) => o.name),
    );
    tf.dispose([...Object.values(feeds), ...out]);
  }
}

async function loadOn(backend: string, settings: WorkerSettings): Promise<Engine> {
  if (!(await tf.setBackend(backend))) throw new Error(`TF.js backend '${backend}' failed to initialise`);
  await tf.ready();
  const { json, handler } = await artifacts(settings.modelPath);
  const model = await tf.loadGraphModel(handler);
  const signatures = signaturesOf(json, model);
  let dynamic = false;
  const engine: Engine = {
    tf,
    backend,
    signatures,
    async run(sig, feeds, fetches) {
      const byTensor: Record<string, TfTensor> = {};
      for (const i of sig.inputs) {
        const t = feeds[i.name];
        if (t !== undefined) byTensor[i.tensor] = t;
      }
      const names = fetches.map((f) => {
        const o = sig.outputs.find((s) => s.name === f);
        if (o === undefined) throw new Error(`signature '${sig.name}' has no output '${f}'`);
        return o.tensor;
      });
      if (!dynamic) {
        try {
          const r = model.execute(byTensor, names);
          return Array.isArray(r) ? r : [r];
        } catch (e) {
          // Control flow and other dynamic ops need the async executor.
          if (!/executeAsync/.test((e as Error).message)) throw e;
          dynamic = true;
        }
      }
      const r = await model.executeAsync(byTensor, names);
      return Array.isArray(r) ? r : [r];
    },
    dispose: () => model.dispose(),
  };
  await warmUp(engine);
  return engine;
}

export async function loadPortable(settings: WorkerSettings, warnings: string[]): Promise<Engine> {
  // Production mode: no debug checks, and no console banner suggesting tfjs-node.
  tf.enableProdMode();
  setWasmPaths(settings.wasmDir.endsWith('/') ? settings.wasmDir : `${settings.wasmDir}/`);
  if (settings.threads > 0) setThreadsCount(settings.threads);
  try {
    return await loadOn('wasm', settings);
  } catch (e) {
    warnings.push(`TF.js WASM backend cannot run this model (${(e as Error).message.split('\n')[0]}); using the TF.js cpu backend`);
    return loadOn('cpu', settings);
  }
}
