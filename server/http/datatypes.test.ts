/**
 * Every V2 datatype through a real onnxruntime Identity model, over V2 JSON and over the
 * binary tensor data extension in both directions, checking the exact bytes that come back.
 * Plus the binary extension's output selection: binary_data_output, per-output binary_data
 * overriding it, and requested outputs returned in request order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_LENGTH, bytesOf, bytesTensor, expectError, json, post, postBinary, splitBinaryResponse } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

interface Row {
  readonly datatype: string;
  /** Values sent as JSON `data` (flat), or undefined when the type has no JSON form. */
  readonly json: readonly unknown[] | undefined;
  /** Exact `data` text expected back for `json`. */
  readonly jsonText: string | undefined;
  /** Raw encoding of `json`: what a binary output of those values must hold. */
  readonly jsonRaw: Uint8Array | undefined;
  /** Raw elements sent over the binary extension (4 elements, extremes included). */
  readonly raw: Uint8Array;
  /** Exact `data` text expected when `raw` comes back as JSON. */
  readonly rawAsJson: string | undefined;
}

const u8 = (a: ArrayBufferView) => bytesOf(a);

const ROWS: readonly Row[] = [
  {
    datatype: 'BOOL',
    json: [true, false, false, true],
    jsonText: 'true,false,false,true',
    jsonRaw: new Uint8Array([1, 0, 0, 1]),
    raw: new Uint8Array([1, 0, 0, 1]),
    rawAsJson: 'true,false,false,true',
  },
  {
    datatype: 'UINT8',
    json: [0, 1, 254, 255],
    jsonText: '0,1,254,255',
    jsonRaw: new Uint8Array([0, 1, 254, 255]),
    raw: new Uint8Array([0, 1, 254, 255]),
    rawAsJson: '0,1,254,255',
  },
  {
    datatype: 'UINT16',
    json: [0, 1, 65534, 65535],
    jsonText: '0,1,65534,65535',
    jsonRaw: u8(Uint16Array.of(0, 1, 65534, 65535)),
    raw: u8(Uint16Array.of(0, 1, 65534, 65535)),
    rawAsJson: '0,1,65534,65535',
  },
  {
    datatype: 'UINT32',
    json: [0, 1, 4294967294, 4294967295],
    jsonText: '0,1,4294967294,4294967295',
    jsonRaw: u8(Uint32Array.of(0, 1, 4294967294, 4294967295)),
    raw: u8(Uint32Array.of(0, 1, 4294967294, 4294967295)),
    rawAsJson: '0,1,4294967294,4294967295',
  },
  {
    datatype: 'UINT64',
    json: [0, 1, 2 ** 53 - 1, 12345],
    jsonText: '0,1,9007199254740991,12345',
    jsonRaw: u8(BigUint64Array.of(0n, 1n, 2n ** 53n - 1n, 12345n)),
    raw: u8(BigUint64Array.of(0n, 1n, 2n ** 64n - 1n, 2n ** 63n)),
    rawAsJson: '0,1,18446744073709551615,9223372036854775808',
  },
  {
    datatype: 'INT8',
    json: [-128, -1, 0, 127],
    jsonText: '-128,-1,0,127',
    jsonRaw: u8(Int8Array.of(-128, -1, 0, 127)),
    raw: u8(Int8Array.of(-128, -1, 0, 127)),
    rawAsJson: '-128,-1,0,127',
  },
  {
    datatype: 'INT16',
    json: [-32768, -1, 0, 32767],
    jsonText: '-32768,-1,0,32767',
    jsonRaw: u8(Int16Array.of(-32768, -1, 0, 32767)),
    raw: u8(Int16Array.of(-32768, -1, 0, 32767)),
    rawAsJson: '-32768,-1,0,32767',
  },
  {
    datatype: 'INT32',
    json: [-2147483648, -1, 0, 2147483647],
    jsonText: '-2147483648,-1,0,2147483647',
    jsonRaw: u8(Int32Array.of(-2147483648, -1, 0, 2147483647)),
    raw: u8(Int32Array.of(-2147483648, -1, 0, 2147483647)),
    rawAsJson: '-2147483648,-1,0,2147483647',
  },
  {
    datatype: 'INT64',
    json: [-(2 ** 53 - 1), -1, 0, 2 ** 53 - 1],
    jsonText: '-9007199254740991,-1,0,9007199254740991',
    jsonRaw: u8(BigInt64Array.of(-(2n ** 53n - 1n), -1n, 0n, 2n ** 53n - 1n)),
    raw: u8(BigInt64Array.of(-(2n ** 63n), -1n, 0n, 2n ** 63n - 1n)),
    rawAsJson: '-9223372036854775808,-1,0,9223372036854775807',
  },
  {
    datatype: 'FP16',
    json: undefined,
    jsonText: undefined,
    jsonRaw: undefined,
    // 1.0, -2.0, +Infinity, the smallest subnormal: bit patterns must survive untouched.
    raw: u8(Uint16Array.of(0x3c00, 0xc000, 0x7c00, 0x0001)),
    rawAsJson: undefined,
  },
  {
    datatype: 'FP32',
    json: [0.5, -1.25, 3, 0.1],
    // Integral floats keep their ".0" and FP32 values print as the double they widen to,
    // as the anchor's orjson does.
    jsonText: '0.5,-1.25,3.0,0.10000000149011612',
    jsonRaw: u8(Float32Array.of(0.5, -1.25, 3, 0.1)),
    raw: u8(Float32Array.of(0.5, -1, 16777216, 0.25)),
    rawAsJson: '0.5,-1.0,16777216.0,0.25',
  },
  {
    datatype: 'FP64',
    json: [0.1, -2.5, 2, 123456.789],
    jsonText: '0.1,-2.5,2.0,123456.789',
    jsonRaw: u8(Float64Array.of(0.1, -2.5, 2, 123456.789)),
    raw: u8(Float64Array.of(0.1, -2.5, 2 ** 53, 0.001)),
    rawAsJson: '0.1,-2.5,9007199254740992.0,0.001',
  },
  {
    datatype: 'BYTES',
    json: ['cat', 'dög', '', '🙂 x'],
    jsonText: '"cat","dög","","🙂 x"',
    jsonRaw: bytesTensor(['cat', 'dög', '', '🙂 x']),
    raw: bytesTensor(['cat', 'dög', '', '🙂 x']),
    rawAsJson: '"cat","dög","","🙂 x"',
  },
];

const modelOf = (datatype: string) => `identity_${datatype.toLowerCase()}`;

/** The `"data":[...]` text of the first output in a JSON response body. */
function dataText(body: string): string {
  const m = /"data":\[(.*)\]\}\]\}$/.exec(body);
  if (m === null) throw new Error(`no data in ${body}`);
  return m[1] as string;
}

let t: TestServer;
let repo: ReturnType<typeof makeRepository>;
beforeAll(async () => {
  repo = makeRepository({
    ...Object.fromEntries(ROWS.map((r) => [modelOf(r.datatype), modelOf(r.datatype)])),
    add_sub: 'add_sub',
  });
  t = await startServer(['--model_repository', repo.dir]);
});
afterAll(async () => {
  await t.close();
  repo.cleanup();
});

const infer = (model: string) => `${t.url}/v2/models/${model}/infer`;

describe('datatype round trips through identity models', () => {
  it('every identity model loaded', async () => {
    const r = await post(`${t.url}/v2/repository/index`);
    const states = (json(r) as Array<{ name: string; state: string }>).map((e) => e.state);
    expect(states).toEqual(Array(ROWS.length + 1).fill('READY'));
  });

  describe.each(ROWS.filter((r) => r.json !== undefined))('$datatype', (row) => {
    it('JSON in, JSON out (nested data), exact text back', async () => {
      const data = row.json as unknown[];
      const r = await post(infer(modelOf(row.datatype)), {
        id: 'x',
        inputs: [{ name: 'INPUT0', shape: [2, 2], datatype: row.datatype, data: [data.slice(0, 2), data.slice(2)] }],
      });
      expect(r.status, r.text).toBe(200);
      expect(r.text).toBe(
        `{"model_name":"${modelOf(row.datatype)}","model_version":null,"id":"x","parameters":null,"outputs":[{"name":"OUTPUT0","shape":[2,2],"datatype":"${row.datatype}","parameters":null,"data":[${row.jsonText}]}]}`,
      );
    });

    it('flat data gives the same result as nested data', async () => {
      const r = await post(infer(modelOf(row.datatype)), {
        inputs: [{ name: 'INPUT0', shape: [2, 2], datatype: row.datatype, data: row.json }],
      });
      expect(r.status, r.text).toBe(200);
      expect(dataText(r.text)).toBe(row.jsonText);
    });

    it('JSON in, binary out: raw bytes equal the typed encoding of the values', async () => {
      const r = await post(infer(modelOf(row.datatype)), {
        inputs: [{ name: 'INPUT0', shape: [2, 2], datatype: row.datatype, data: row.json }],
        parameters: { binary_data_output: true },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/octet-stream');
      const { header, raw } = splitBinaryResponse(r);
      const expected = Buffer.from(row.jsonRaw as Uint8Array);
      expect(header.outputs[0]).toEqual({
        name: 'OUTPUT0',
        shape: [2, 2],
        datatype: row.datatype,
        parameters: { binary_data_size: expected.byteLength },
      });
      expect(raw.get('OUTPUT0')?.equals(expected)).toBe(true);
    });

    it('binary in, JSON out: exact text of the raw values', async () => {
      const r = await postBinary(
        infer(modelOf(row.datatype)),
        { inputs: [{ name: 'INPUT0', shape: [2, 2], datatype: row.datatype, parameters: { binary_data_size: row.raw.byteLength } }] },
        [row.raw],
      );
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(dataText(r.text)).toBe(row.rawAsJson);
    });
  });

  describe.each(ROWS)('$datatype binary round trip', (row) => {
    it('binary in, binary out: the exact bytes come back', async () => {
      const r = await postBinary(
        infer(modelOf(row.datatype)),
        {
          id: 'b',
          inputs: [{ name: 'INPUT0', shape: [2, 2], datatype: row.datatype, parameters: { binary_data_size: row.raw.byteLength } }],
          parameters: { binary_data_output: true },
        },
        [row.raw],
      );
      expect(r.status, r.text).toBe(200);
      const { headerText, raw } = splitBinaryResponse(r);
      expect(headerText).toBe(
        `{"id":"b","model_name":"${modelOf(row.datatype)}","model_version":null,"outputs":[{"name":"OUTPUT0","shape":[2,2],"datatype":"${row.datatype}","parameters":{"binary_data_size":${row.raw.byteLength}}}]}`,
      );
      expect(r.headers.get(HEADER_LENGTH)).toBe(String(Buffer.byteLength(headerText)));
      expect(Buffer.from(raw.get('OUTPUT0') as Buffer).equals(Buffer.from(row.raw))).toBe(true);
    });
  });

  it.each([
    ['FP32', u8(Float32Array.of(3.4028234663852886e38, 1.401298464324817e-45, NaN, -Infinity)), [3.4028234663852886e38, 1.401298464324817e-45, null, null]],
    ['FP64', u8(Float64Array.of(Number.MAX_VALUE, 5e-324, Infinity, NaN)), [Number.MAX_VALUE, 5e-324, null, null]],
  ])('%s extremes come back as the same numbers over JSON, NaN and Infinity as null', async (datatype, raw, expected) => {
    const r = await postBinary(infer(modelOf(datatype)), { inputs: [{ name: 'INPUT0', shape: [1, 4], datatype, parameters: { binary_data_size: raw.byteLength } }] }, [raw]);
    expect(r.status, r.text).toBe(200);
    expect((json(r) as { outputs: Array<{ data: unknown[] }> }).outputs[0]?.data).toEqual(expected);
  });

  it('FP16 via JSON is rejected with 400 naming the input', async () => {
    const r = await post(infer('identity_fp16'), {
      inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP16', data: [1, 2] }],
    });
    expectError(r, 400, /INPUT0.*FP16 data via JSON is not supported/);
  });

  it('an FP16 output requested without binary_data is rejected with 400', async () => {
    const r = await postBinary(infer('identity_fp16'), { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP16', parameters: { binary_data_size: 4 } }] }, [
      u8(Uint16Array.of(0x3c00, 0x4000)),
    ]);
    expectError(r, 400, /OUTPUT0.*FP16.*binary_data/);
  });

  it('an empty tensor (a zero dimension) round-trips', async () => {
    const r = await post(infer('identity_int32'), {
      inputs: [{ name: 'INPUT0', shape: [0, 3], datatype: 'INT32', data: [] }],
    });
    expect(r.status, r.text).toBe(200);
    expect((json(r) as { outputs: unknown[] }).outputs[0]).toEqual({
      name: 'OUTPUT0',
      shape: [0, 3],
      datatype: 'INT32',
      parameters: null,
      data: [],
    });
  });
});

describe('binary tensor data extension: output selection', () => {
  const ones = Array(16).fill(1);
  const seq = Array.from({ length: 16 }, (_, i) => i);
  const inputs = [
    { name: 'INPUT0', shape: [1, 16], datatype: 'FP32', data: seq },
    { name: 'INPUT1', shape: [1, 16], datatype: 'FP32', data: ones },
  ];
  const f32 = (a: number[]) => Buffer.from(u8(Float32Array.from(a)));

  it('requested outputs come back in request order, and only those', async () => {
    const r = await post(infer('add_sub'), { inputs, outputs: [{ name: 'OUTPUT1' }, { name: 'OUTPUT0' }] });
    expect(r.status).toBe(200);
    expect((json(r) as { outputs: Array<{ name: string }> }).outputs.map((o) => o.name)).toEqual(['OUTPUT1', 'OUTPUT0']);
    const one = await post(infer('add_sub'), { inputs, outputs: [{ name: 'OUTPUT1' }] });
    expect((json(one) as { outputs: Array<{ name: string; data: number[] }> }).outputs).toEqual([expect.objectContaining({ name: 'OUTPUT1', data: seq.map((x) => x - 1) })]);
  });

  it('an empty outputs list returns every output, as when it is absent', async () => {
    const r = await post(infer('add_sub'), { inputs, outputs: [] });
    expect(r.status, r.text).toBe(200);
    expect((json(r) as { outputs: Array<{ name: string }> }).outputs.map((o) => o.name)).toEqual(['OUTPUT0', 'OUTPUT1']);
  });

  it('binary_data_output: true makes every output binary, in model order', async () => {
    const r = await post(infer('add_sub'), { id: '1', inputs, parameters: { binary_data_output: true } });
    const { headerText, raw } = splitBinaryResponse(r);
    expect(headerText).toBe(
      '{"id":"1","model_name":"add_sub","model_version":null,"outputs":[' +
        '{"name":"OUTPUT0","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}},' +
        '{"name":"OUTPUT1","shape":[1,16],"datatype":"FP32","parameters":{"binary_data_size":64}}]}',
    );
    expect(raw.get('OUTPUT0')?.equals(f32(seq.map((x) => x + 1)))).toBe(true);
    expect(raw.get('OUTPUT1')?.equals(f32(seq.map((x) => x - 1)))).toBe(true);
  });

  it('per-output binary_data overrides binary_data_output, in both directions', async () => {
    const r = await post(infer('add_sub'), {
      id: '2',
      inputs,
      parameters: { binary_data_output: true },
      outputs: [{ name: 'OUTPUT1', parameters: { binary_data: false } }, { name: 'OUTPUT0' }],
    });
    const { header, raw } = splitBinaryResponse(r);
    expect(header.outputs).toEqual([
      { name: 'OUTPUT1', shape: [1, 16], datatype: 'FP32', data: seq.map((x) => x - 1) },
      { name: 'OUTPUT0', shape: [1, 16], datatype: 'FP32', parameters: { binary_data_size: 64 } },
    ]);
    expect([...raw.keys()]).toEqual(['OUTPUT0']);

    const r2 = await post(infer('add_sub'), {
      inputs,
      parameters: { binary_data_output: false },
      outputs: [{ name: 'OUTPUT0' }, { name: 'OUTPUT1', parameters: { binary_data: true } }],
    });
    const s2 = splitBinaryResponse(r2);
    expect(s2.header.outputs.map((o) => [o.name, o.data === undefined])).toEqual([
      ['OUTPUT0', false],
      ['OUTPUT1', true],
    ]);
    expect(s2.raw.get('OUTPUT1')?.equals(f32(seq.map((x) => x - 1)))).toBe(true);
  });

  it('binary inputs mixed with JSON inputs, in any order', async () => {
    const r = await postBinary(
      infer('add_sub'),
      {
        inputs: [
          { name: 'INPUT0', shape: [1, 16], datatype: 'FP32', data: seq },
          { name: 'INPUT1', shape: [1, 16], datatype: 'FP32', parameters: { binary_data_size: 64 } },
        ],
        outputs: [{ name: 'OUTPUT0' }],
      },
      [f32(ones)],
    );
    expect(r.status, r.text).toBe(200);
    expect((json(r) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data).toEqual(seq.map((x) => x + 1));
  });

  it('two binary inputs are read back to back at unaligned offsets', async () => {
    // A header length that is not a multiple of 4 forces copies of misaligned views.
    const header = {
      id: 'odd-offset',
      inputs: [
        { name: 'INPUT0', shape: [1, 16], datatype: 'FP32', parameters: { binary_data_size: 64 } },
        { name: 'INPUT1', shape: [1, 16], datatype: 'FP32', parameters: { binary_data_size: 64 } },
      ],
      parameters: { binary_data_output: true },
    };
    expect(Buffer.byteLength(JSON.stringify(header)) % 4).not.toBe(0);
    const r = await postBinary(infer('add_sub'), header, [f32(seq), f32(ones)]);
    const { raw } = splitBinaryResponse(r);
    expect(raw.get('OUTPUT0')?.equals(f32(seq.map((x) => x + 1)))).toBe(true);
  });

  it('a binary body sent without a content type is still decoded (tritonclient does this)', async () => {
    const header = Buffer.from(JSON.stringify({ inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'INT32', parameters: { binary_data_size: 8 } }] }));
    const body = Buffer.concat([header, Buffer.from(u8(Int32Array.of(7, -7)))]);
    const res = await fetch(infer('identity_int32'), {
      method: 'POST',
      headers: { [HEADER_LENGTH]: String(header.byteLength) },
      body,
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(dataText(text)).toBe('7,-7');
  });
});

describe('concurrent requests', () => {
  it('each of many concurrent JSON and binary requests gets its own data back', async () => {
    const n = 48;
    const results = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const values = Int32Array.from({ length: 64 }, (_, j) => i * 1000 + j);
        const r =
          i % 2 === 0
            ? await postBinary(
                infer('identity_int32'),
                { inputs: [{ name: 'INPUT0', shape: [1, 64], datatype: 'INT32', parameters: { binary_data_size: 256 } }], parameters: { binary_data_output: true } },
                [u8(values)],
              )
            : await post(infer('identity_int32'), { inputs: [{ name: 'INPUT0', shape: [1, 64], datatype: 'INT32', data: Array.from(values) }] });
        expect(r.status, r.text).toBe(200);
        const got = i % 2 === 0 ? Buffer.from(splitBinaryResponse(r).raw.get('OUTPUT0') as Buffer) : Buffer.from(u8(Int32Array.from(dataText(r.text).split(',').map(Number))));
        return got.equals(Buffer.from(u8(values)));
      }),
    );
    expect(results).toEqual(Array(n).fill(true));
  });
});
