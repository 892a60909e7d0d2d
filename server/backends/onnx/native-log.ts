/**
 * onnxruntime's own logger writes raw text to stderr, coloured with ANSI codes
 * (`[E:onnxruntime:, sequential_executor.cc:671 ExecuteKernel] Non-zero status code ...` when
 * a kernel fails): not JSON, so a log pipeline splits or drops it, and it says nothing the
 * server's JSON log lacks, since every failure onnxruntime reports also comes back as the
 * error of the call that failed, which the server answers and logs ('request failed',
 * 'model load failed', the CUDA fallback warning). Both of its loggers are kept to FATAL,
 * the messages before an abort: the process-wide one (set before a thread's first session)
 * and each session's, which a run inherits.
 */
import ort from 'onnxruntime-node';

/** onnxruntime's severities: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal. */
const FATAL = 4;

/** The session options that keep onnxruntime's text off stderr; also quiets its process-wide logger. */
export function quietNativeLog(): Pick<ort.InferenceSession.SessionOptions, 'logSeverityLevel'> {
  ort.env.logLevel = 'fatal';
  return { logSeverityLevel: FATAL };
}
