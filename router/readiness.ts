/**
 * Readiness that follows the steps (beyond KServe, whose /readyz only says whether the
 * router is shutting down): the graph is ready when every service it calls is. Each step
 * URL is probed where KServe's servers report readiness: `/v2/models/{m}[/versions/{v}]/ready`
 * for a V2 infer URL, `/v1/models/{m}` for a V1 predict URL, `/` (liveness) otherwise.
 * Probes run at most once per PROBE_TTL_MS however often readiness is asked, concurrent
 * askers share one round, and each probe is bounded by PROBE_TIMEOUT_MS.
 */
import { request } from 'undici';

export const PROBE_TTL_MS = 1000;
export const PROBE_TIMEOUT_MS = 2000;

/** Where a step URL's readiness is read. */
export function readinessUrl(serviceUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const v2 = /^(\/v2\/models\/[^/]+(?:\/versions\/[^/]+)?)\/infer$/.exec(url.pathname);
  const v1 = /^(\/v1\/models\/[^/:]+):predict$/.exec(url.pathname);
  const path = v2 !== null ? `${v2[1]}/ready` : v1 !== null ? v1[1]! : '/';
  return `${url.origin}${path}`;
}

async function probe(url: string): Promise<boolean> {
  try {
    const res = await request(url, { method: 'GET', headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body.dump();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

export interface ReadinessState {
  readonly ready: boolean;
  /** The probe URLs that did not answer 200 (or the step URLs that cannot be probed). */
  readonly notReady: readonly string[];
}

export class StepReadiness {
  readonly #urls: readonly { step: string; probe: string | undefined }[];
  #last: { at: number; state: ReadinessState } | undefined;
  #round: Promise<ReadinessState> | undefined;

  constructor(serviceUrls: readonly string[]) {
    this.#urls = serviceUrls.map((step) => ({ step, probe: readinessUrl(step) }));
  }

  check(): Promise<ReadinessState> {
    if (this.#last !== undefined && Date.now() - this.#last.at < PROBE_TTL_MS) return Promise.resolve(this.#last.state);
    this.#round ??= (async () => {
      const results = await Promise.all(this.#urls.map(async (u) => (u.probe !== undefined && (await probe(u.probe)) ? undefined : (u.probe ?? u.step))));
      const notReady = results.filter((r): r is string => r !== undefined);
      const state = { ready: notReady.length === 0, notReady };
      this.#last = { at: Date.now(), state };
      this.#round = undefined;
      return state;
    })();
    return this.#round;
  }
}
