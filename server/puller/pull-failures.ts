/**
 * Why a pulled model is not served: the stage that failed and the reason reported in the
 * repository index (UNAVAILABLE + reason, as Triton's index and KServe's agent errors) and
 * counted in `kserve_model_pull_failures_total{model_name, stage}`. One table: a stage's
 * message is written here, not at the call site.
 */
export const PULL_STAGES = ['memory', 'download', 'load'] as const;
export type PullStage = (typeof PULL_STAGES)[number];

export interface PullFailure {
  readonly stage: PullStage;
  readonly reason: string;
}

const MESSAGES: Readonly<Record<PullStage, (uri: string, detail: string) => string>> = {
  memory: (_uri, detail) => `Not loaded: ${detail}`,
  download: (uri, detail) => `Failed to download ${uri}: ${detail}`,
  load: (uri, detail) => `Failed to load the model downloaded from ${uri}: ${detail}`,
};

export function pullFailure(stage: PullStage, uri: string, detail: string): PullFailure {
  return { stage, reason: MESSAGES[stage](uri, detail.replaceAll(/[\r\n]+/g, ' ')) };
}
