/** Small checks on decoded JSON values shared by the JSON codecs. */

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Dimensions of a nested JSON array, read along its first elements. */
export function nestedShape(v: unknown): number[] {
  const shape: number[] = [];
  let cur = v;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    cur = cur[0];
  }
  return shape;
}
