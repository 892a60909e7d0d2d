/** Builds V2 binary-extension request bodies (JSON header + raw tensors) for tests and benchmarks. */

export interface BinaryInput {
  readonly name: string;
  readonly datatype: string;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

export function binaryInferBody(inputs: readonly BinaryInput[], extra: Record<string, unknown> = {}): { body: Buffer; headerLength: number } {
  const header = Buffer.from(
    JSON.stringify({
      ...extra,
      inputs: inputs.map((i) => ({
        name: i.name,
        datatype: i.datatype,
        shape: i.shape,
        parameters: { binary_data_size: i.bytes.byteLength },
      })),
    }),
  );
  return { body: Buffer.concat([header, ...inputs.map((i) => i.bytes)]), headerLength: header.byteLength };
}
