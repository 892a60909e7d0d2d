/** Byte order of this host: typed arrays are little-endian on the wire, native in memory. */
export const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
