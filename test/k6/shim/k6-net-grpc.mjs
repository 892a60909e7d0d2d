// The subset of `k6/net/grpc` the scripts use: Client (load, connect, invoke, close) and the
// status constants. Protos load on the main thread with the same JSON mapping k6 uses
// (proto field names, bytes as base64, int64 as strings, defaults emitted).
import path from 'node:path';
import { workerData } from 'node:worker_threads';
import { call, results } from './bridge.mjs';

let nextId = 0;

export class Client {
  #id = ++nextId;
  #protos = undefined;

  load(importPaths, ...files) {
    // k6 resolves import paths against the script's own folder.
    this.#protos = { includeDirs: importPaths.map((p) => path.resolve(workerData.scriptDir, p)), files };
  }

  connect(address, params = {}) {
    if (this.#protos === undefined) throw new Error('grpc.Client: load() before connect()');
    if (params.plaintext !== true) throw new Error('k6 shim: only plaintext connections are supported');
    call({ kind: 'grpc-connect', client: this.#id, address, ...this.#protos });
  }

  invoke(method, message, params = {}) {
    const answer = call({ kind: 'grpc-invoke', client: this.#id, method, message, metadata: params.metadata ?? {} });
    results.counters.grpc_reqs += 1;
    return answer;
  }

  close() {
    call({ kind: 'grpc-close', client: this.#id });
  }
}

export const StatusOK = 0;
export const StatusCancelled = 1;
export const StatusUnknown = 2;
export const StatusInvalidArgument = 3;
export const StatusDeadlineExceeded = 4;
export const StatusNotFound = 5;
export const StatusResourceExhausted = 8;
export const StatusInternal = 13;
export const StatusUnavailable = 14;
export default {
  Client,
  StatusOK,
  StatusCancelled,
  StatusUnknown,
  StatusInvalidArgument,
  StatusDeadlineExceeded,
  StatusNotFound,
  StatusResourceExhausted,
  StatusInternal,
  StatusUnavailable,
};
