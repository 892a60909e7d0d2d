/**
 * TF Serving's model status document (GetModelStatusResponse as its REST API writes it,
 * `GET /v1/models/{m}/versions/{v}` and `/labels/{l}`):
 * `{"model_version_status": [{"version": "3", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]}`.
 * States are TF Serving's ManagerState: START, LOADING, AVAILABLE, UNLOADING, END. A version
 * whose load failed is END with error code UNKNOWN and the reason, as TF Serving reports a
 * servable that reached its end through an error.
 */

/** The server's own states of a model or version. */
export type ServingState = 'LOADING' | 'READY' | 'FAILED' | 'UNLOADING';

const TF_STATES: Readonly<Record<ServingState, string>> = {
  LOADING: 'LOADING',
  READY: 'AVAILABLE',
  UNLOADING: 'UNLOADING',
  FAILED: 'END',
};

export interface ModelVersionStatus {
  readonly version: string;
  readonly state: string;
  readonly status: { readonly error_code: string; readonly error_message: string };
}

export function modelStatusDocument(version: string, state: ServingState, reason: string | undefined): { model_version_status: ModelVersionStatus[] } {
  const failed = state === 'FAILED';
  return {
    model_version_status: [{ version, state: TF_STATES[state], status: { error_code: failed ? 'UNKNOWN' : 'OK', error_message: failed ? (reason ?? '') : '' } }],
  };
}
