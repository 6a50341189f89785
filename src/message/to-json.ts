/** JSON text of a value; `undefined`, which JSON cannot spell, becomes `null`. */
export function toJson(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value);
}
