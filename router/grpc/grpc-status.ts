/**
 * gRPC status codes and the HTTP statuses the router's logic and metrics use for them
 * (what KServe's servers answer over REST for the same failure), both ways.
 */
import { status as Code } from '@grpc/grpc-js';

const TO_HTTP: ReadonlyMap<number, number> = new Map([
  [Code.OK, 200],
  [Code.CANCELLED, 499],
  [Code.INVALID_ARGUMENT, 400],
  [Code.DEADLINE_EXCEEDED, 504],
  [Code.NOT_FOUND, 404],
  [Code.ALREADY_EXISTS, 409],
  [Code.PERMISSION_DENIED, 403],
  [Code.RESOURCE_EXHAUSTED, 429],
  [Code.FAILED_PRECONDITION, 400],
  [Code.UNIMPLEMENTED, 501],
  [Code.UNAVAILABLE, 503],
  [Code.UNAUTHENTICATED, 401],
]);

export function httpOfGrpc(code: number): number {
  return TO_HTTP.get(code) ?? 500;
}

const TO_GRPC: ReadonlyMap<number, number> = new Map([
  [400, Code.INVALID_ARGUMENT],
  [401, Code.UNAUTHENTICATED],
  [403, Code.PERMISSION_DENIED],
  [404, Code.NOT_FOUND],
  [413, Code.RESOURCE_EXHAUSTED],
  [429, Code.RESOURCE_EXHAUSTED],
  [499, Code.CANCELLED],
  [501, Code.UNIMPLEMENTED],
  [502, Code.UNAVAILABLE],
  [503, Code.UNAVAILABLE],
  [504, Code.DEADLINE_EXCEEDED],
]);

export function grpcOfHttp(status: number): number {
  return TO_GRPC.get(status) ?? Code.INTERNAL;
}
