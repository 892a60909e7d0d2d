/**
 * The gRPC wire of the graph (beyond KServe, whose router speaks only HTTP): each step is
 * called with ModelInfer over gRPC (step-channels.ts), its answer or error status kept as
 * the payload. Sequence, Switch and Splitter behave as over REST. An Ensemble answers one
 * response holding every step's outputs, named `{step}/{output}` (step: its name, or its
 * index), raw when any step answered raw; a step that failed without stopping the node
 * (not Hard) adds no outputs and a string parameter `{step}/error` with its status.
 * A failed step passed on as `$response` passes the graph's request instead (a gRPC error
 * has no message to pass).
 */
import * as grpc from '@grpc/grpc-js';
import type { ModelInferRequestMessage } from '../../protocols/grpc/messages.js';
import { encodeGrpcInferResponse } from '../../protocols/grpc/infer-response.js';
import type { Parameters, Tensor } from '../../protocols/tensor.js';
import type { GraphWire, StepAnswer, StepRef } from '../executor.js';
import { RoutingError } from '../routing-error.js';
import { type GrpcPayload, conditionJson, responseAsRequest, responseTensors } from './grpc-payload.js';
import { httpOfGrpc } from './grpc-status.js';
import type { StepChannels } from './step-channels.js';

export interface GrpcRequestContext {
  /** The graph's request, as it came. */
  readonly request: ModelInferRequestMessage;
  readonly metadata: grpc.Metadata;
  /** routerTimeouts.serviceClient, in ms. */
  readonly timeoutMs: number | undefined;
  readonly signal: AbortSignal;
}

export type GrpcPart = { readonly ok: true; readonly outputs: Tensor[]; readonly raw: boolean } | { readonly ok: false; readonly code: number; readonly details: string };

export function grpcWire(channels: StepChannels, ctx: GrpcRequestContext): GraphWire<GrpcPayload, GrpcPart> {
  return {
    async call(ref: StepRef, input: GrpcPayload): Promise<StepAnswer<GrpcPayload>> {
      const where = channels.resolve(ref.url);
      if (where === undefined) throw new RoutingError(500, `step ${ref.step} of node ${ref.node}: serviceUrl "${ref.url}" is not a URL`);
      const base = input.kind === 'request' ? input.msg : input.kind === 'response' ? responseAsRequest(input.msg) : ctx.request;
      const msg: ModelInferRequestMessage = {
        ...base,
        model_name: where.model ?? ctx.request.model_name ?? '',
        model_version: where.model === undefined ? base.model_version : (where.version ?? ''),
      };
      const outcome = await channels.infer(where.target, msg, ctx.metadata, ctx.timeoutMs, ctx.signal);
      if (outcome.ok) return { status: 200, payload: { kind: 'response', msg: outcome.msg } };
      if (ctx.signal.aborted) throw new RoutingError(499, 'the client went away');
      const status = httpOfGrpc(outcome.code);
      return { status, payload: { kind: 'error', code: outcome.code, details: outcome.details } };
    },

    conditionDocument: conditionJson,

    mapPredictionsToInstances: (p) => p,

    ensemblePart(ref: StepRef, answer: StepAnswer<GrpcPayload>): GrpcPart {
      const p = answer.payload;
      if (p.kind === 'error') return { ok: false, code: p.code, details: p.details };
      if (p.kind !== 'response') throw new RoutingError(500, `step ${ref.step} of node ${ref.node} answered no response`);
      try {
        return { ok: true, outputs: responseTensors(p.msg), raw: p.msg.raw_output_contents.length > 0 };
      } catch (err) {
        throw new RoutingError(500, `step ${ref.step} of node ${ref.node}: ${(err as Error).message}`);
      }
    },

    ensembleFailure(part: GrpcPart, status: number): StepAnswer<GrpcPayload> {
      if (!part.ok) return { status, payload: { kind: 'error', code: part.code, details: part.details } };
      return { status, payload: { kind: 'error', code: grpc.status.UNKNOWN, details: 'step failed' } };
    },

    ensembleMerge(parts: readonly (readonly [string, GrpcPart])[]): GrpcPayload {
      const outputs: Tensor[] = [];
      const parameters: Parameters = {};
      let raw = false;
      for (const [key, part] of parts) {
        if (!part.ok) {
          parameters[`${key}/error`] = `${grpc.status[part.code] ?? part.code}: ${part.details}`;
          continue;
        }
        raw ||= part.raw;
        for (const t of part.outputs) outputs.push({ ...t, name: `${key}/${t.name}` });
      }
      const msg = encodeGrpcInferResponse({ modelName: ctx.request.model_name ?? '', id: ctx.request.id || undefined, parameters, outputs }, raw);
      return { kind: 'response', msg };
    },
  };
}
