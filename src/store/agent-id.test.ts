import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatAgentId, parseAgentId } from './agent-id.js';

describe('parseAgentId', () => {
  it('reads a root id and a fork id, and formats them back', () => {
    const root = randomUUID();
    const fork = randomUUID();
    expect(formatAgentId(parseAgentId(root))).toBe(root);
    expect(formatAgentId(parseAgentId(`${root}:${fork}`))).toBe(`${root}:${fork}`);
  });

  it('refuses <root>:<root>, naming the root agent id to use instead', () => {
    const root = randomUUID();
    expect(() => parseAgentId(`${root}:${root.toUpperCase()}`)).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_AGENT', message: expect.stringContaining(`the root agent is "${root}"`) }),
    );
  });

  it('refuses what is not one or two uuids', () => {
    for (const id of ['', 'abc', `${randomUUID()}:`, `${randomUUID()}:${randomUUID()}:${randomUUID()}`]) {
      expect(() => parseAgentId(id)).toThrow(expect.objectContaining({ code: 'UNKNOWN_AGENT' }));
    }
  });
});
