import { describe, expect, it } from 'vitest';
import { parseCommandFlags } from './command-flags.js';
import { windowFlags } from './commands/window-command-line.js';
import { historyFlags } from './commands/store-command-lines.js';

describe('parseCommandFlags', () => {
  it('gives a command the flags it declares, as typed: the ones not given absent, a config file\'s budget and policy as read', () => {
    expect(parseCommandFlags(windowFlags, {}, 'window')).toEqual({});
    expect(parseCommandFlags(windowFlags, { budget: 30_000, policy: { name: 'fraction', fraction: 0.25 }, pinFirst: true, contextWindow: '8000' }, 'window'))
      .toEqual({ budget: 30_000, policy: { name: 'fraction', fraction: 0.25 }, pinFirst: true });
    expect(parseCommandFlags(historyFlags, { budget: 'model', all: true, tail: '5', dataDir: 'store' }, 'history')).toEqual({ budget: 'model', all: true, tail: '5', dataDir: 'store' });
  });

  it('refuses a value of the wrong kind, naming the command and the flag', () => {
    expect(() => parseCommandFlags(historyFlags, { dataDir: 12 }, 'history')).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringMatching(/^history --data-dir: /) }));
  });
});
