/**
 * TF Serving's SavedModel warm-up (tensorflow.org/tfx/serving/saved_model_warmup): the
 * TFRecord file `<version>/assets.extra/tf_serving_warmup_requests`, each record a
 * serialized PredictionLog, run before the version is served. Its requests go through the
 * same runner as config.pbtxt's `model_warmup` (model-warmup.ts), on every instance.
 *
 * As TF Serving: at most 1000 records (more fails the load), each run once, a record that
 * cannot be read or run fails the load. Unlike TF Serving, only `predict_log` records are
 * run: a classify, regress or multi_inference log (which need tf.Example parsing that is not
 * served here) fails the load naming its type rather than being skipped, so a model is never
 * served colder than its author meant; session_run_log and an empty log fail in TF Serving
 * too. All records are read and checked before the first runs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_DECODE_LIMITS } from '../../protocols/limits.js';
import { decodePredictionLog } from '../../protocols/tf-serving/prediction-log.js';
import type { Tensor } from '../../protocols/tensor.js';
import type { WarmupRequest } from './model-warmup.js';
import { readTfRecords } from './tfrecord.js';

export const TF_SERVING_WARMUP_FILE = path.join('assets.extra', 'tf_serving_warmup_requests');
/** TF Serving's WarmupConsts::kMaxNumRecords. */
export const MAX_WARMUP_RECORDS = 1000;

/** A copy per run: the instance may detach the buffers it is given. */
function copy(t: Tensor): Tensor {
  return { ...t, data: Array.isArray(t.data) ? t.data.map((s) => Uint8Array.from(s)) : t.data.slice() };
}

function request(record: Buffer, k: number, where: string): WarmupRequest {
  const label = `warm-up record ${k} of ${where}`;
  let log;
  try {
    log = decodePredictionLog(record, DEFAULT_DECODE_LIMITS.maxTensorElements);
  } catch (e) {
    throw new Error(`${label} is not a PredictionLog: ${(e as Error).message}`, { cause: e });
  }
  if (log.logType !== 'predict_log') {
    const what = log.logType === undefined ? 'has no log type' : `is a ${log.logType}`;
    throw new Error(`${label} ${what}; only predict_log warm-up records are supported`);
  }
  const { inputs, signatureName, outputFilter } = log.request;
  return { label, count: 1, tensors: () => inputs.map(copy), signature: signatureName, outputs: outputFilter };
}

/** The warm-up requests of the version in `dir`; none when it has no warm-up file. */
export async function tfServingWarmupRequests(dir: string): Promise<WarmupRequest[]> {
  let file: Buffer;
  try {
    file = await readFile(path.join(dir, TF_SERVING_WARMUP_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const where = TF_SERVING_WARMUP_FILE;
  return readTfRecords(file, MAX_WARMUP_RECORDS, where).map((r, k) => request(r, k, where));
}
