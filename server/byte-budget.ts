/**
 * One budget for bytes held at once over many uses: REST request bodies (http/body-budget.ts)
 * and a transformer's predictor answers (predictor-client/http-forwarder.ts). Each use opens an
 * account, takes what it receives chunk by chunk, and gives it all back when done; a chunk
 * that would pass the budget is refused (the use fails, with the caller's message), so a few
 * peers that send most of a large body and stall cannot hold memory without bound.
 */
export interface ByteAccount {
  /** Counts `bytes` more; false, counting nothing, when the budget would be passed. */
  take: (bytes: number) => boolean;
  /** Gives back everything taken so far (idempotent; bytes taken later count anew). Bound: a listener may call it. */
  release: () => void;
}

export class ByteBudget {
  #held = 0;

  /** `maxBytes` 0 = no limit. */
  constructor(readonly maxBytes: number) {}

  /** Bytes held now, over every open account. */
  get held(): number {
    return this.#held;
  }

  open(): ByteAccount {
    let mine = 0;
    return {
      take: (bytes) => {
        if (this.maxBytes > 0 && this.#held + bytes > this.maxBytes) return false;
        this.#held += bytes;
        mine += bytes;
        return true;
      },
      release: () => {
        this.#held -= mine;
        mine = 0;
      },
    };
  }
}
