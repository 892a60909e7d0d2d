/**
 * Memory accounting as KServe's TrainedModel admission does it: each model's declared
 * `modelSpec.memory` is counted against one total (`--model_memory_limit`, the predictor
 * container's memory as the controller passes it), and a model that does not fit what the
 * others leave is refused with the numbers. Declared sizes are trusted as KServe trusts them:
 * they are the operator's statement, not a measurement.
 */
import { describeBytes } from '../../cli/quantity.js';

export class MemoryBudget {
  readonly #held = new Map<string, number>();

  /** `limit`: total bytes; undefined: no accounting (every model fits). */
  constructor(readonly limit: number | undefined) {}

  used(): number {
    let n = 0;
    for (const bytes of this.#held.values()) n += bytes;
    return n;
  }

  /**
   * Holds `bytes` for `name` (replacing what it held) when they fit beside the others, and
   * returns undefined; otherwise holds nothing new and returns why, naming the numbers.
   */
  reserve(name: string, bytes: number): string | undefined {
    if (this.limit === undefined) {
      this.#held.set(name, bytes);
      return undefined;
    }
    const others = this.used() - (this.#held.get(name) ?? 0);
    const left = Math.max(0, this.limit - others);
    if (bytes > left) {
      return `model ${name} declares memory ${describeBytes(bytes)}, more than the ${describeBytes(left)} left of --model_memory_limit ${describeBytes(this.limit)} (${describeBytes(others)} held by other models)`;
    }
    this.#held.set(name, bytes);
    return undefined;
  }

  release(name: string): void {
    this.#held.delete(name);
  }
}
