/**
 * onnxruntime-node's Linux library embeds Microsoft's telemetry client, which starts with the
 * first session and resolves mobile.events.data.microsoft.com to upload usage events. A model
 * server (often air-gapped) must make no outbound attempt it was not asked for.
 *
 * The library reads ORT_DISABLE_TELEMETRY with getenv(), i.e. from the process environment
 * shared by every thread. Writing process.env on the main thread changes that environment
 * (worker threads get copies, but native code in them still sees the process's), and child
 * processes (--workers) inherit it. So this must run on the main thread before the first
 * session is created and before any worker thread or process starts.
 */

/**
 * Turns onnxruntime's telemetry off unless `enabled`. An ORT_DISABLE_TELEMETRY the operator
 * set explicitly is left as it is.
 */
export function configureOrtTelemetry(enabled: boolean, env: NodeJS.ProcessEnv = process.env): void {
  if (enabled || env.ORT_DISABLE_TELEMETRY !== undefined) return;
  env.ORT_DISABLE_TELEMETRY = '1';
}
