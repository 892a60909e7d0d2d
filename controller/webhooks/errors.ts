/**
 * The webhooks' error catalogue. A mutator or validator throws one of these by name; the
 * server turns it into `allowed: false` with the message and the code (anything else
 * thrown becomes a 500 with its message), never into an HTTP error the API server would
 * report without the reason.
 */

export class WebhookError extends Error {
  /** The AdmissionResponse status code: 400 for a bad object, 500 for a failed lookup. */
  readonly code: 400 | 500;

  constructor(code: 400 | 500, message: string) {
    super(message);
    this.name = 'WebhookError';
    this.code = code;
  }
}

const bad = (message: string): WebhookError => new WebhookError(400, message);
const failed = (message: string): WebhookError => new WebhookError(500, message);

export const errors = {
  noModelContainer: (names: readonly string[]) => bad(`cannot inject the storage initializer: the pod has no container named ${names.map((n) => `'${n}'`).join(' or ')}`),
  /** KServe's wording (LLMInferenceService storage: "OCI modelcars is not enabled"), with the switch to turn. */
  modelcarsDisabled: (uri: string) =>
    bad(`cannot serve '${uri}': OCI modelcars is not enabled (set "enableModelcar": true in the storageInitializer key of the inferenceservice-config ConfigMap)`),
  invalidOciUri: (uri: string) => bad(`invalid OCI storage URI '${uri}': expected oci://<registry>/<image>[:<tag>|@<digest>]`),
  invalidPvcUri: (uri: string) => bad(`invalid PVC storage URI '${uri}': expected pvc://<claim-name>[/<path>]`),
  invalidAnnotationJson: (key: string, cause: string) => bad(`annotation '${key}' must be a JSON object of strings: ${cause}`),
  secretNotFound: (namespace: string, name: string, why: string) => bad(`secret '${namespace}/${name}' (${why}) not found`),
  storageKeyNotFound: (key: string, secret: string) => bad(`storage key '${key}' not found in storage secret '${secret}'`),
  storageSecretMissing: (secret: string, key: string) => bad(`storage secret '${secret}' not found, and storage key '${key}' was requested from it`),
  invalidStorageConfigJson: (key: string, secret: string, cause: string) => bad(`key '${key}' of storage secret '${secret}' is not valid JSON: ${cause}`),
  unsupportedStorageType: (type: string, supported: readonly string[]) => bad(`storage type '${type}' is not supported (supported: ${supported.join(', ')})`),
  storageTypeUnknown: (secret: string) => bad(`unable to determine the storage type: set storage.parameters.type or 'type' in the storage secret '${secret}' entry`),
  missingBucket: (type: string) => bad(`storage type '${type}' requires a bucket, found neither in the storage secret nor in storage.parameters`),
  lookupFailed: (what: string, cause: string) => failed(`reading ${what} failed: ${cause}`),
} as const;
