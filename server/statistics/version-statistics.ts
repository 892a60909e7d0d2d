/**
 * One loaded model version's inference statistics, for Triton's statistics extension
 * (protocols/triton-documents.ts). Nothing here reads a clock: the request pipeline
 * (pipeline/pipeline.ts) hands over the very readings it observes in the Prometheus stage
 * histograms, and the dynamic batcher those of its queue histogram, so counters and
 * histograms agree by construction:
 *
 *   compute_input   request_preprocess_seconds   (count and sum, per version)
 *   compute_infer   request_predict_seconds      (includes a batched request's queue time, as the histogram does)
 *   compute_output  request_postprocess_seconds
 *   queue           kserve_batch_queue_seconds   (batched versions only)
 *
 * `success` and `fail` are whole requests from the lease to the answer (Triton's request
 * duration); `inference_count` counts rows (dim 0) for a model with max_batch_size > 0 and
 * 1 per request otherwise, as Triton does. Executions are one per successful request, or, for
 * a batched version, one per batch the batcher ran (`executionsFromBatcher`).
 * Only the `infer` verb is counted: explain is no inference in Triton's sense.
 */
import type { InferBatchStatistics, ModelStatisticsDocument, StatisticDuration } from '../../protocols/triton-documents.js';

class Duration {
  count = 0;
  ns = 0;

  add(seconds: number): void {
    this.count++;
    this.ns += Math.round(seconds * 1e9);
  }

  get value(): StatisticDuration {
    return { count: this.count, ns: this.ns };
  }
}

export type ComputeStage = 'preprocess' | 'predict' | 'postprocess';

interface BatchRow {
  readonly input: Duration;
  readonly infer: Duration;
  readonly output: Duration;
}

export class VersionStatistics {
  readonly #success = new Duration();
  readonly #fail = new Duration();
  readonly #queue = new Duration();
  readonly #compute: Record<ComputeStage, Duration> = { preprocess: new Duration(), predict: new Duration(), postprocess: new Duration() };
  /** Keyed by batch size; a Map so that sizes stay numbers and lookups never meet a prototype. */
  readonly #batches = new Map<number, BatchRow>();
  #inferences = 0;
  #executions = 0;
  #lastInference = 0;

  /**
   * `executionsFromBatcher`: the dynamic batcher runs this version and reports each batch it
   * runs (`executed`); otherwise each successful request is one execution of its own rows.
   */
  constructor(readonly executionsFromBatcher: boolean) {}

  /** A pipeline stage's reading, as observed in its histogram. */
  stage(stage: ComputeStage, seconds: number): void {
    this.#compute[stage].add(seconds);
  }

  /** A request answered: `rows` inferences, `seconds` from its lease to its encoded answer. */
  succeeded(rows: number, seconds: number): void {
    this.#success.add(seconds);
    this.#inferences += rows;
    this.#lastInference = Date.now();
  }

  failed(seconds: number): void {
    this.#fail.add(seconds);
    this.#lastInference = Date.now();
  }

  /** A request's wait in the dynamic batcher, as observed in kserve_batch_queue_seconds. */
  queued(seconds: number): void {
    this.#queue.add(seconds);
  }

  /**
   * One successful model execution of `batchSize` rows: the backend's run (`inferSeconds`);
   * the request's decode and encode where the execution is one request's own.
   */
  executed(batchSize: number, inferSeconds: number, inputSeconds?: number, outputSeconds?: number): void {
    this.#executions++;
    let row = this.#batches.get(batchSize);
    if (row === undefined) {
      row = { input: new Duration(), infer: new Duration(), output: new Duration() };
      this.#batches.set(batchSize, row);
    }
    row.infer.add(inferSeconds);
    if (inputSeconds !== undefined) row.input.add(inputSeconds);
    if (outputSeconds !== undefined) row.output.add(outputSeconds);
  }

  document(name: string, version: string): ModelStatisticsDocument {
    const none: StatisticDuration = { count: 0, ns: 0 };
    const batchStats: InferBatchStatistics[] = [...this.#batches.entries()]
      .sort(([a], [b]) => a - b)
      .map(([size, row]) => ({ batch_size: size, compute_input: row.input.value, compute_infer: row.infer.value, compute_output: row.output.value }));
    return {
      name,
      version,
      last_inference: this.#lastInference,
      inference_count: this.#inferences,
      execution_count: this.#executions,
      inference_stats: {
        success: this.#success.value,
        fail: this.#fail.value,
        queue: this.#queue.value,
        compute_input: this.#compute.preprocess.value,
        compute_infer: this.#compute.predict.value,
        compute_output: this.#compute.postprocess.value,
        // No response cache.
        cache_hit: none,
        cache_miss: none,
      },
      batch_stats: batchStats,
    };
  }
}
