import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeptJsonText } from './kept-json-text.js';

const shared = { tools: ['read_file', 'bash'], at: new Date(1_700_000_000_000) };
const field = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(shared.tools), fc.constant(shared.at));
const row = fc.oneof(
  fc.dictionary(fc.constantFrom('index', 'title', 'tools', 'createdAt', 'cache', '0', '10'), field, { maxKeys: 5 }),
  fc.array(field, { maxLength: 4 }),
  field,
);
/** One step: rows kept (the same objects), replaced by equal copies, or changed, dropped or added. */
const step = fc.record({
  change: fc.array(fc.tuple(fc.nat(), row), { maxLength: 4 }),
  copy: fc.boolean(),
  length: fc.nat({ max: 12 }),
  header: fc.dictionary(fc.string({ maxLength: 3 }), field, { maxKeys: 3 }),
});

describe('KeptJsonText', () => {
  it('gives exactly what JSON.stringify gives, step after step, whatever changed in the rows', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), fc.array(step, { minLength: 1, maxLength: 8 }), (first, steps) => {
        const kept = new KeptJsonText(['rows', 'other']);
        let rows: unknown[] = first;
        for (const { change, copy, length, header } of steps) {
          rows = copy ? rows.map((value) => (Array.isArray(value) ? [...(value as unknown[])] : value !== null && typeof value === 'object' && !(value instanceof Date) ? { ...value } : value)) : [...rows];
          for (const [at, value] of change) rows[at % (rows.length + 1)] = value;
          rows = rows.slice(0, length);
          const value = { ...header, rows, other: rows.slice(1), skipped: undefined };
          expect(kept.text(value)).toBe(JSON.stringify(value));
        }
      }),
      { numRuns: 500 },
    );
  });
});
