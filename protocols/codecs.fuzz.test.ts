/**
 * Property-based fuzzing of every request codec (V1 instances/inputs, TF Serving's dialect,
 * V2 JSON, V2 binary extension header + body, gRPC typed and raw, gRPC wire bytes through
 * the real protobuf deserialiser), #16. Invariants:
 * - anything, however hostile, either decodes or throws a catalogue client error
 *   (InvalidInput, PayloadTooLarge): never a RangeError, a TypeError or a stack overflow;
 * - nothing decoded exceeds the limits it was decoded under (elements, inputs, outputs);
 * - a valid tensor decodes to the same data over V2 JSON, V2 binary, gRPC typed and gRPC raw.
 * FUZZ_SEED replays a run (the seed is printed); FUZZ_RUNS scales every property (default
 * 17,000 cases each, over 100,000 in all).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATATYPES, type Datatype, datatypeInfo } from './datatypes.js';
import { KServeError } from './errors.js';
import { decodeGrpcInferRequest } from './grpc/infer-request.js';
import { INFERENCE_SERVICE, loadProtocolDefinition } from './grpc/proto.js';
import type { DecodeLimits } from './limits.js';
import type { InferRequest, TensorSpec } from './tensor.js';
import { decodeV1Request } from './v1/codec.js';
import { tfServingDialect } from './v1/tf-serving.js';
import { decodeRestInferRequest } from './v2/rest-request.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 17_000);
console.log(`codec fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} cases per property`);
const params = { seed: SEED, numRuns: RUNS };

/** Small limits, so that generated requests reach them often. */
const LIMITS: DecodeLimits = { maxTensorElements: 4096, maxInputs: 8, maxOutputs: 8 };
const CLIENT_KINDS = new Set(['InvalidInput', 'PayloadTooLarge']);

/** Runs a decode: a client error is fine; anything else fails the property. Checks the result against LIMITS. */
function decodesOrRefuses(fn: () => InferRequest | undefined): void {
  let req: InferRequest | undefined;
  try {
    req = fn();
  } catch (e) {
    if (!(e instanceof KServeError) || !CLIENT_KINDS.has(e.kind)) throw new Error(`not a client error: ${String(e)}`, { cause: e });
    return;
  }
  if (req === undefined) return;
  expect(req.inputs.length).toBeLessThanOrEqual(LIMITS.maxInputs);
  expect(req.outputs?.length ?? 0).toBeLessThanOrEqual(LIMITS.maxOutputs);
  let total = 0;
  for (const t of req.inputs) total += t.data.length;
  expect(total).toBeLessThanOrEqual(LIMITS.maxTensorElements);
}

// ---------------------------------------------------------------- hostile generators

const datatype = fc.oneof(fc.constantFrom<string>(...DATATYPES), fc.string({ maxLength: 6 }));
/** Dimensions: mostly small, sometimes huge, negative, fractional or not numbers at all. */
const dim = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 1e300, -1, 0.5, Number.NaN) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 40 }) },
);
const shape = fc.oneof({ weight: 8, arbitrary: fc.array(dim, { maxLength: 5 }) }, { weight: 1, arbitrary: fc.array(dim, { minLength: 60, maxLength: 70 }) });
const leaf = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.string({ maxLength: 4 }), fc.constant(null), fc.bigInt().map(String));
/** JSON `data`: flat or nested lists, ragged, sometimes deeper than any tensor. */
const data: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('v'), { maxLength: 6 })),
})).v;
const deep = fc.integer({ min: 60, max: 200 }).map((n) => JSON.parse(`${'['.repeat(n)}1${']'.repeat(n)}`) as unknown);
const parameters = fc.option(
  fc.dictionary(fc.constantFrom('binary_data_size', 'content_type', 'x'), fc.oneof(fc.integer({ min: -4, max: 64 }), fc.string({ maxLength: 3 }), fc.double())),
  { nil: undefined },
);
const v2Input = fc.record(
  {
    name: fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.string({ maxLength: 3 })),
    datatype,
    shape: fc.oneof({ weight: 9, arbitrary: shape }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }),
    data: fc.oneof({ weight: 9, arbitrary: data }, { weight: 1, arbitrary: deep }),
    parameters,
  },
  { requiredKeys: [] },
);
const v2Doc = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
    inputs: fc.oneof({ weight: 9, arbitrary: fc.array(v2Input, { maxLength: 4 }) }, { weight: 1, arbitrary: fc.array(fc.constant({}), { minLength: 9, maxLength: 20 }) }),
    outputs: fc.array(fc.record({ name: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()) }, { requiredKeys: [] }), { maxLength: 10 }),
    parameters,
  },
  { requiredKeys: [] },
);

describe(`codec fuzzing (seed ${SEED})`, () => {
  it('V2 JSON: any document decodes or is a client error, within the limits', () => {
    fc.assert(
      fc.property(fc.oneof(v2Doc, fc.jsonValue()), (doc) => decodesOrRefuses(() => decodeRestInferRequest(Buffer.from(JSON.stringify(doc) ?? 'null'), undefined, LIMITS))),
      params,
    );
  });

  it('V2 binary extension: any header, header length and tensor bytes', () => {
    fc.assert(
      fc.property(v2Doc, fc.uint8Array({ maxLength: 96 }), fc.integer({ min: -8, max: 8 }), (doc, tail, skew) => {
        const head = Buffer.from(JSON.stringify(doc));
        const body = Buffer.concat([head, tail]);
        const headerLength = Math.max(0, Math.min(body.byteLength, head.byteLength + skew));
        decodesOrRefuses(() => decodeRestInferRequest(body, headerLength, LIMITS));
      }),
      params,
    );
  });

  it('V2 REST: arbitrary bytes as a body', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 128 }), fc.option(fc.nat(140), { nil: undefined }), (bytes, hl) => {
        decodesOrRefuses(() => decodeRestInferRequest(bytes, hl === undefined ? undefined : Math.min(hl, bytes.byteLength), LIMITS));
      }),
      params,
    );
  });

  const grpcInput = fc.record(
    {
      name: fc.constantFrom('a', 'b', ''),
      datatype,
      shape: fc.array(
        fc.oneof(
          dim.map((d) => (Number.isFinite(d) ? String(Math.trunc(d)) : String(d))),
          fc.constantFrom('18446744073709551615', '-1', '', 'x', '1e3'),
        ),
        { maxLength: 5 },
      ),
      contents: fc.option(
        fc.record(
          {
            fp32_contents: fc.array(fc.float(), { maxLength: 8 }),
            int_contents: fc.array(fc.integer(), { maxLength: 8 }),
            int64_contents: fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), { maxLength: 8 }),
            uint_contents: fc.array(fc.nat(), { maxLength: 8 }),
            bool_contents: fc.array(fc.boolean(), { maxLength: 8 }),
            bytes_contents: fc.array(fc.uint8Array({ maxLength: 4 }), { maxLength: 8 }),
          },
          { requiredKeys: [] },
        ),
        { nil: null },
      ),
    },
    { requiredKeys: [] },
  );

  it('gRPC typed and raw: any message object', () => {
    fc.assert(
      fc.property(fc.array(grpcInput, { maxLength: 4 }), fc.option(fc.array(fc.uint8Array({ maxLength: 48 }), { maxLength: 5 }), { nil: undefined }), (inputs, raw) => {
        decodesOrRefuses(
          () => decodeGrpcInferRequest({ model_name: 'm', inputs, ...(raw === undefined ? {} : { raw_input_contents: raw.map((r) => Buffer.from(r)) }) }, LIMITS).request,
        );
      }),
      params,
    );
  });

  const definition = loadProtocolDefinition();
  const infer = (definition[INFERENCE_SERVICE] as unknown as Record<string, { requestDeserialize(b: Buffer): unknown; requestSerialize(v: unknown): Buffer }>)['ModelInfer']!;

  it('gRPC wire bytes: arbitrary and mutated ModelInferRequest messages through the real deserialiser', () => {
    const valid = infer.requestSerialize({
      model_name: 'm',
      inputs: [{ name: 'a', datatype: 'BYTES', shape: ['2'] }],
      raw_input_contents: [Buffer.from([1, 0, 0, 0, 97, 1, 0, 0, 0, 98])],
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.array(fc.tuple(fc.nat(valid.byteLength - 1), fc.nat(255)), { maxLength: 4 }).map((edits) => {
            const b = Buffer.from(valid);
            for (const [i, v] of edits) b[i] = v;
            return new Uint8Array(b);
          }),
        ),
        (bytes) => {
          let msg: unknown;
          try {
            msg = infer.requestDeserialize(Buffer.from(bytes));
          } catch {
            return; // grpc-js answers INTERNAL for undecodable protobuf itself; the codec never sees it
          }
          decodesOrRefuses(() => decodeGrpcInferRequest(msg as never, LIMITS).request);
        },
      ),
      params,
    );
  });

  const specs: TensorSpec[][] = [
    [{ name: 'x', datatype: 'FP32', shape: [-1, -1] }],
    [
      { name: 'x', datatype: 'INT64', shape: [-1] },
      { name: 'y', datatype: 'BYTES', shape: [-1] },
    ],
    [{ name: 'x', datatype: 'FP16', shape: [-1, 2] }],
  ];
  const v1Doc = fc.oneof(
    fc.record({ instances: fc.oneof(fc.array(fc.oneof(data, fc.dictionary(fc.constantFrom('x', 'y', 'z'), data)), { maxLength: 6 }), data, deep) }, { requiredKeys: [] }),
    fc.record({ inputs: fc.oneof(fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.oneof(data, deep)), data) }),
    fc.jsonValue(),
  );

  it('V1 (KServe): any instances or inputs document', () => {
    fc.assert(
      fc.property(v1Doc, fc.constantFrom(...specs), (doc, inputs) => decodesOrRefuses(() => decodeV1Request(doc, inputs, LIMITS))),
      params,
    );
  });

  it("V1 (TF Serving's dialect): any document, with b64 strings and signature names", () => {
    const b64 = fc.oneof(fc.base64String({ maxLength: 12 }), fc.string({ maxLength: 6 })).map((b) => ({ b64: b }));
    const tfDoc = fc.record(
      {
        signature_name: fc.oneof(fc.constant('serving_default'), fc.string({ maxLength: 4 })),
        instances: fc.oneof(fc.array(fc.oneof(data, b64), { maxLength: 5 }), deep),
        inputs: fc.oneof(data, b64, fc.dictionary(fc.constantFrom('x', 'y'), data)),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(tfDoc, fc.constantFrom<Datatype>('BYTES', 'FP32', 'INT32'), (doc, dt) => {
        const model = {
          name: 'm',
          version: undefined,
          platform: 'tensorflow_savedmodel',
          inputs: [{ name: 'x', datatype: dt, shape: [-1] }],
          outputs: [{ name: 'y', datatype: dt, shape: [-1] }],
          signatures: undefined,
        };
        decodesOrRefuses(() => tfServingDialect.decode(doc, model, LIMITS).request);
      }),
      params,
    );
  });

  it('a valid tensor decodes to the same data over V2 JSON, V2 binary, gRPC typed and gRPC raw', () => {
    const numeric = fc.constantFrom<Datatype>('INT8', 'INT16', 'INT32', 'UINT8', 'UINT16', 'UINT32', 'FP32', 'FP64', 'INT64', 'BOOL');
    const tensor = numeric.chain((dt) =>
      fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }).chain((dims) => {
        const n = dims.reduce((a, b) => a * b, 1);
        const info = datatypeInfo(dt)!;
        const value =
          dt === 'BOOL'
            ? fc.integer({ min: 0, max: 1 })
            : dt === 'FP32' || dt === 'FP64'
              ? fc.integer({ min: -1000, max: 1000 }).map((v) => v / 8)
              : fc.integer({ min: 0, max: 100 });
        return fc.array(value, { minLength: n, maxLength: n }).map((values) => {
          const arr = new info.arrayType!(n);
          values.forEach((v, i) => ((arr as unknown as Array<number | bigint>)[i] = info.bigint ? BigInt(v) : v));
          return { dt, dims, values, arr };
        });
      }),
    );
    fc.assert(
      fc.property(tensor, ({ dt, dims, values, arr }) => {
        const bytes = Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
        const jsonValues = dt === 'BOOL' ? values.map((v) => v === 1) : values;
        const viaJson = decodeRestInferRequest(Buffer.from(JSON.stringify({ inputs: [{ name: 'a', datatype: dt, shape: dims, data: jsonValues }] })), undefined).inputs[0]!;
        const head = Buffer.from(JSON.stringify({ inputs: [{ name: 'a', datatype: dt, shape: dims, parameters: { binary_data_size: bytes.byteLength } }] }));
        const viaBinary = decodeRestInferRequest(Buffer.concat([head, bytes]), head.byteLength).inputs[0]!;
        const field = datatypeInfo(dt)!.grpcField!;
        const typed = dt === 'BOOL' ? jsonValues : info64(dt) ? values.map(String) : values;
        const viaTyped = decodeGrpcInferRequest({ inputs: [{ name: 'a', datatype: dt, shape: dims.map(String), contents: { [field]: typed } }] }).request.inputs[0]!;
        const viaRaw = decodeGrpcInferRequest({ inputs: [{ name: 'a', datatype: dt, shape: dims.map(String) }], raw_input_contents: [Buffer.from(bytes)] }).request.inputs[0]!;
        for (const t of [viaJson, viaBinary, viaTyped, viaRaw]) {
          expect(t.shape).toEqual(dims);
          expect(Array.from(t.data as ArrayLike<unknown>)).toEqual(Array.from(arr as ArrayLike<unknown>));
        }
      }),
      { ...params, numRuns: Math.ceil(RUNS / 4) },
    );
  });
});

function info64(dt: Datatype): boolean {
  return dt === 'INT64' || dt === 'UINT64';
}
