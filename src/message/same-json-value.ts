/**
 * Whether two values parsed from JSON are equal (what `isDeepStrictEqual` says of them, in a
 * fraction of its time: the proxy compares a long history message by message on every request).
 */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || Object.is(a, b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJsonValue(a[index], b[index])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  for (const key of keys) if (!Object.hasOwn(right, key) || !sameJsonValue(left[key], right[key])) return false;
  return true;
}
