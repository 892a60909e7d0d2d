// The subset of `k6/encoding` the scripts use: standard base64.
export function b64encode(input) {
  return (typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(new Uint8Array(input))).toString('base64');
}
export function b64decode(input, _encoding, format) {
  const bytes = Buffer.from(input, 'base64');
  return format === 's' ? bytes.toString('utf8') : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
export default { b64encode, b64decode };
