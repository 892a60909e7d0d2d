/**
 * Repository polling (Triton's `--model-control-mode=poll --repository-poll-secs`, TF
 * Serving's `--file_system_poll_wait_seconds`): `ModelRepository.poll` every interval. The
 * next poll is timed from the end of the last one, so a slow load never overlaps the next.
 */
import type { Logger } from 'pino';

export interface RepositoryPoll {
  /** Stops polling; resolves once a poll in progress has finished. */
  stop(): Promise<void>;
}

export function startRepositoryPoll(repository: { poll(): Promise<void> }, intervalMs: number, logger: Logger): RepositoryPoll {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = repository
        .poll()
        .catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'repository poll failed; trying again next time'))
        .finally(schedule);
    }, intervalMs);
    // Polling alone never keeps the process alive.
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
