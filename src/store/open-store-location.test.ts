import { describe, expect, it } from 'vitest';
import { HistoryStore } from './history-store.js';
import { requireStoreLocation, type StoreLocation } from './open-database.js';

describe('HistoryStore.open', () => {
  it.each([
    [undefined, /the location is missing/],
    [null, /the location is null/],
    [{}, /the location names no store/],
    [{ dataDir: '' }, /dataDir is "", not a directory/],
    [{ databaseUrl: 5 }, /databaseUrl is number/],
  ])('refuses %j with INVALID_OPTION before touching the disk', async (location, message) => {
    // Untyped, as JavaScript callers hand it over.
    const untyped: unknown = location;
    await expect(HistoryStore.open(untyped as StoreLocation)).rejects.toMatchObject({ name: 'SlidingContextError', code: 'INVALID_OPTION', message: expect.stringMatching(message) });
  });

  it('refuses a dataDir of whitespace (checked alone: opened, it would be a directory in the working directory)', () => {
    expect(() => {
      requireStoreLocation({ dataDir: '  ' });
    }).toThrow(/^HistoryStore\.open: dataDir is " {2}", not a directory/);
  });
});
