/**
 * The JSON text of an object whose long arrays hold rows that mostly stay the same from one write
 * to the next (a history's exchanges and timeline rows): each row's text is kept, and given again
 * while the row at that place has the same fields holding the same values (`===`, in the same
 * order), so that a long history is stringified in time that grows with what changed. The text
 * is exactly what `JSON.stringify` gives.
 */
export class KeptJsonText {
  readonly #rows: ReadonlySet<string>;
  readonly #kept = new Map<string, { readonly rows: readonly unknown[]; readonly texts: readonly string[] }>();

  /** `rows`: the keys of the object's arrays whose rows' texts are kept. */
  constructor(rows: readonly string[]) {
    this.#rows = new Set(rows);
  }

  /** `JSON.stringify(value)`, with the rows of the arrays named at construction stringified only when they changed. */
  text(value: object): string {
    const parts: string[] = [];
    for (const [key, field] of Object.entries(value)) {
      // Left out, as JSON.stringify leaves them out.
      if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
      const text = this.#rows.has(key) && Array.isArray(field) ? this.#arrayText(key, field) : JSON.stringify(field);
      parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }

  #arrayText(key: string, rows: readonly unknown[]): string {
    const before = this.#kept.get(key);
    const texts = rows.map((row, index) => {
      const previous = before?.rows[index];
      const kept = before?.texts[index];
      if (kept !== undefined && sameFields(previous, row)) return kept;
      // As an array element, as JSON.stringify writes it there (null for a value JSON cannot hold).
      return JSON.stringify([row]).slice(1, -1);
    });
    this.#kept.set(key, { rows, texts });
    return `[${texts.join(',')}]`;
  }
}

/** Whether two rows stringify the same for sure: the same value, or objects (or arrays) with the same keys in the same order, each holding the same value. */
function sameFields(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b) || 'toJSON' in a || 'toJSON' in b) return false;
  const keys = Object.keys(a);
  const otherKeys = Object.keys(b);
  if (keys.length !== otherKeys.length) return false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (key !== otherKeys[index] || (a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) return false;
  }
  return true;
}
