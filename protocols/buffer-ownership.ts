/**
 * Marks ArrayBuffers that a transport allocated for one request alone (for example the
 * body of a binary request), so that a backend may transfer them to another thread instead
 * of copying. A buffer that is not marked may be shared (Node's Buffer pool) and must not
 * be detached.
 */
const detachable = new WeakSet<ArrayBuffer>();

export function markDetachable(buffer: ArrayBufferLike): void {
  if (buffer instanceof ArrayBuffer) detachable.add(buffer);
}

export function isDetachable(buffer: ArrayBufferLike): boolean {
  return buffer instanceof ArrayBuffer && detachable.has(buffer);
}
