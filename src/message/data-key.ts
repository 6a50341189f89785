/**
 * Sets `key` on a copy as an own, enumerable data property. Defined, not assigned: a key named
 * `__proto__` (JSON may hold one) stays data instead of becoming the copy's prototype.
 */
export function setDataKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
