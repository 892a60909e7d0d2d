/** Server name and version reported by `GET /v2` and gRPC ServerMetadata (kept equal to package.json by a test). */
export const SERVER_NAME = 'kserve-ts';
export const SERVER_VERSION = '0.1.0';
