/**
 * The native engine: SavedModels through @tensorflow/tfjs-node (libtensorflow). tfjs-node is
 * an optional dependency whose binding may be missing (see scripts/build-tfjs-node.sh), so it
 * is imported by a computed name and typed here by the few calls we make.
 */
import { DEFAULT_SIGNATURE, type Engine, type Tf, type TfTensor, defaultFirst } from './tf-engine.js';
import type { WireSignature, WireSpec, WorkerSettings } from './tf-messages.js';

/** tfjs-node's signature entry: `shape` holds protobuf TensorShape.Dim messages. */
interface SignatureDefEntry {
  dtype: string;
  tfDtype?: string;
  shape?: Array<number | { getSize(): number | string }>;
  name: string;
}
interface MetaGraph {
  tags: string[];
  signatureDefs: Record<string, { inputs: Record<string, SignatureDefEntry>; outputs: Record<string, SignatureDefEntry> }>;
}
interface SavedModel {
  predict(inputs: Record<string, TfTensor>): TfTensor | TfTensor[] | Record<string, TfTensor>;
  dispose(): void;
}
export interface TfjsNode extends Tf {
  node: {
    getMetaGraphsFromSavedModel(path: string): Promise<MetaGraph[]>;
    loadSavedModel(path: string, tags?: string[], signature?: string): Promise<SavedModel>;
  };
  version: Tf['version'] & { 'tfjs-node'?: string };
}

export const TFJS_NODE = '@tensorflow/tfjs-node';

export async function importTfjsNode(): Promise<TfjsNode> {
  const name = TFJS_NODE;
  return (await import(name)) as TfjsNode;
}

function specs(entries: Record<string, SignatureDefEntry>): WireSpec[] {
  return Object.entries(entries).map(([alias, e]) => ({
    name: alias,
    dtype: e.tfDtype ?? e.dtype,
    shape: (e.shape ?? []).map((d) => {
      const n = Number(typeof d === 'object' ? d.getSize() : d);
      return n >= 0 ? n : -1;
    }),
    tensor: e.name,
  }));
}

/** Input dtypes tfjs-node can feed a SavedModel: TF.js's own, plus its int64 and uint8 conversions. */
const FEEDABLE = new Set(['DT_FLOAT', 'DT_INT32', 'DT_BOOL', 'DT_STRING', 'DT_INT64', 'DT_UINT8']);

/** tfjs-node warns on every INT64 output; this worker returns INT64 exactly, so drop that line. */
function quietInt64Warning(): void {
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith('INT64 output tensor will be stored')) return;
    warn(...args);
  };
}

export async function loadNative(settings: WorkerSettings, warnings: string[]): Promise<Engine> {
  quietInt64Warning();
  const tf = await importTfjsNode();
  const dir = settings.modelPath;
  const metaGraphs = await tf.node.getMetaGraphsFromSavedModel(dir);
  const wanted = [...settings.tags].sort().join(',');
  const meta = metaGraphs.find((m) => [...m.tags].sort().join(',') === wanted);
  if (meta === undefined) {
    throw new Error(`no MetaGraph with tags [${settings.tags.join(', ')}] in ${dir}; it has ${metaGraphs.map((m) => `[${m.tags.join(', ')}]`).join(' ')}`);
  }
  const signatures = defaultFirst(
    Object.entries(meta.signatureDefs)
      .filter(([name]) => !name.startsWith('__'))
      .map(([name, def]) => ({ name, inputs: specs(def.inputs), outputs: specs(def.outputs) })),
  );
  if (signatures.length === 0) throw new Error(`the SavedModel in ${dir} has no signatures`);
  for (const sig of signatures) {
    for (const i of sig.inputs) {
      if (!FEEDABLE.has(i.dtype)) {
        warnings.push(`signature '${sig.name}' input '${i.name}' is ${i.dtype}, which tfjs-node cannot feed; requests to it will fail`);
      }
    }
  }
  const models = new Map<string, SavedModel>();
  const modelFor = async (sig: WireSignature): Promise<SavedModel> => {
    let m = models.get(sig.name);
    if (m === undefined) {
      m = await tf.node.loadSavedModel(dir, [...settings.tags], sig.name);
      models.set(sig.name, m);
    }
    return m;
  };
  // Load the default signature now so that a broken model fails its load, not its first request.
  await modelFor(signatures.find((s) => s.name === DEFAULT_SIGNATURE) ?? (signatures[0] as WireSignature));
  return {
    tf,
    backend: 'tensorflow',
    signatures,
    async run(sig, feeds, fetches) {
      const model = await modelFor(sig);
      const result = model.predict(feeds);
      const byName: Record<string, TfTensor> = {};
      if (Array.isArray(result)) sig.outputs.forEach((o, i) => (byName[o.name] = result[i] as TfTensor));
      else if (result instanceof tf.Tensor) byName[(sig.outputs[0] as WireSpec).name] = result;
      else Object.assign(byName, result);
      const out = fetches.map((f) => {
        const t = byName[f];
        if (t === undefined) throw new Error(`signature '${sig.name}' produced no output '${f}'`);
        return t;
      });
      tf.dispose(
        Object.entries(byName)
          .filter(([k]) => !fetches.includes(k))
          .map(([, t]) => t),
      );
      return out;
    },
    dispose: () => {
      for (const m of models.values()) m.dispose();
    },
  };
}
