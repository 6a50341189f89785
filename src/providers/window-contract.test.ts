import { readdirSync, readFileSync } from 'node:fs';
import { describe } from 'vitest';
import { describeWindowContract } from './window.contract.js';
import { wireFormats } from './wire-format.js';

const fixtureDir = new URL('./__fixtures__/', import.meta.url);
const fixturesOf = (format: string) => {
  try {
    return readdirSync(new URL(`${format}/`, fixtureDir))
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(new URL(`${format}/${name}`, fixtureDir), 'utf8')) as unknown);
  } catch {
    return [];
  }
};

describe.each(wireFormats)('the window contract, %s', (format) => {
  describeWindowContract(format, fixturesOf(format));
});
