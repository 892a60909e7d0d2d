/**
 * The tensors of one `model_warmup` sample, as Triton builds them: each input's `dims`
 * (with the batch dimension in front, at `batch_size`, when the model batches) filled with
 * zeros, random values, or the raw row-major bytes of `input_data_file` (for TYPE_STRING,
 * each element a 4-byte little-endian length and its bytes), the one-sample data repeated
 * for every row of the batch. Data files are read from `warmup/` in the version's folder,
 * then in the model's (Triton's place for them).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type DatatypeInfo, allocate, datatypeInfo, elementCount } from '../../protocols/datatypes.js';
import type { Tensor } from '../../protocols/tensor.js';
import type { WarmupInput, WarmupSample } from '../backend/model-config.js';
import type { WarmupRequest } from './model-warmup.js';

/** Bounded so that a model indexing with an integer input (an embedding) likely stays in range. */
const RANDOM_INT_BOUND = 128;
/** FP16 and BF16 travel as bit patterns: below these, a random pattern is a value in [0, 1). */
const BELOW_ONE = { FP16: 0x3c00, BF16: 0x3f80 } as const;

/** One sample's worth of raw values for `input`: the file's bytes, or undefined for generated data. */
export type SampleBytes = ReadonlyMap<string, Buffer>;

async function findFile(folders: readonly string[], file: string, where: string): Promise<Buffer> {
  for (const folder of folders) {
    try {
      return await readFile(path.join(folder, 'warmup', file));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new Error(`${where}: input_data_file '${file}' is not in ${folders.map((f) => path.join(f, 'warmup')).join(' or ')}`);
}

/** Reads the data files a sample names, once per load; keyed by input name. */
export async function readSampleFiles(sample: WarmupSample, folders: readonly string[]): Promise<SampleBytes> {
  const out = new Map<string, Buffer>();
  for (const i of sample.inputs) {
    if (i.data.kind === 'file') out.set(i.name, await findFile(folders, i.data.file, `input '${i.name}'`));
  }
  return out;
}

function randomNumeric(info: DatatypeInfo, count: number): Tensor['data'] {
  const data = allocate(info, count);
  for (let k = 0; k < count; k++) {
    const r = Math.random();
    if (info.name === 'FP32' || info.name === 'FP64') data[k] = r;
    else if (info.name === 'FP16' || info.name === 'BF16') data[k] = Math.floor(r * BELOW_ONE[info.name]);
    else if (info.name === 'BOOL') data[k] = r < 0.5 ? 0 : 1;
    else if (info.bigint) data[k] = BigInt(Math.floor(r * RANDOM_INT_BOUND));
    else data[k] = Math.floor(r * RANDOM_INT_BOUND);
  }
  return data;
}

/** TYPE_STRING file data: `count` length-prefixed elements. */
function stringElements(bytes: Buffer, count: number, where: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  let off = 0;
  for (let k = 0; k < count; k++) {
    if (off + 4 > bytes.length) throw new Error(`${where}: input_data_file holds ${k} length-prefixed strings, the dims need ${count}`);
    const n = bytes.readUInt32LE(off);
    if (off + 4 + n > bytes.length) throw new Error(`${where}: input_data_file string ${k} is cut short`);
    out.push(Uint8Array.from(bytes.subarray(off + 4, off + 4 + n)));
    off += 4 + n;
  }
  return out;
}

/** One row's values for `input` from its file: at least the bytes the dims need, as Triton asks. */
function fileNumeric(info: DatatypeInfo, bytes: Buffer, count: number, where: string): Tensor['data'] {
  const need = count * info.byteSize;
  if (bytes.length < need) throw new Error(`${where}: input_data_file holds ${bytes.length} bytes, the dims need ${need}`);
  const data = allocate(info, count);
  new Uint8Array(data.buffer).set(bytes.subarray(0, need));
  return data;
}

function repeatRows(one: Tensor['data'], rows: number, info: DatatypeInfo): Tensor['data'] {
  if (rows === 1) return one;
  if (Array.isArray(one)) return Array.from({ length: rows }, () => one).flat();
  const out = allocate(info, one.length * rows);
  for (let r = 0; r < rows; r++) out.set(one as never, r * one.length);
  return out;
}

function tensor(input: WarmupInput, batch: number | undefined, bytes: Buffer | undefined): Tensor {
  const info = datatypeInfo(input.datatype) as DatatypeInfo;
  const where = `input '${input.name}'`;
  const count = elementCount(input.dims);
  let row: Tensor['data'];
  if (info.arrayType === undefined) {
    // TYPE_STRING: random data is zero data (empty strings), as in Triton.
    row = input.data.kind === 'file' ? stringElements(bytes as Buffer, count, where) : Array.from({ length: count }, () => new Uint8Array(0));
  } else if (input.data.kind === 'file') row = fileNumeric(info, bytes as Buffer, count, where);
  else if (input.data.kind === 'random') row = randomNumeric(info, count);
  else row = allocate(info, count);
  const shape = batch === undefined ? input.dims : [batch, ...input.dims];
  return { name: input.name, datatype: input.datatype, shape, data: repeatRows(row, batch ?? 1, info) };
}

/**
 * Fresh tensors for one run of `sample` (a backend may detach them). `maxBatchSize` > 0: the
 * dims get the batch dimension in front; 0: the sample must be of batch size 1.
 */
export function sampleTensors(sample: WarmupSample, maxBatchSize: number, files: SampleBytes): Tensor[] {
  if (maxBatchSize === 0 && sample.batchSize !== 1) throw new Error(`batch_size ${sample.batchSize} needs a model that batches (max_batch_size > 0)`);
  if (maxBatchSize > 0 && sample.batchSize > maxBatchSize) throw new Error(`batch_size ${sample.batchSize} exceeds max_batch_size ${maxBatchSize}`);
  return sample.inputs.map((i) => tensor(i, maxBatchSize > 0 ? sample.batchSize : undefined, files.get(i.name)));
}

/**
 * config.pbtxt's samples as requests for the warm-up runner (model-warmup.ts): their data
 * files read once, fresh tensors built for every run.
 */
export async function configWarmupRequests(samples: readonly WarmupSample[], maxBatchSize: number, folders: readonly string[]): Promise<WarmupRequest[]> {
  return Promise.all(
    samples.map(async (sample) => {
      const label = `model_warmup '${sample.name}'`;
      const files = await readSampleFiles(sample, folders).catch((e: unknown) => Promise.reject(new Error(`${label} failed: ${(e as Error).message}`, { cause: e })));
      return { label, count: sample.count, tensors: () => sampleTensors(sample, maxBatchSize, files) };
    }),
  );
}
