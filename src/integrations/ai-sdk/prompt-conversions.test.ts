import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { messagesFromPrompt, type PromptMessage } from './language-model-prompt.js';
import { PromptConversions } from './prompt-conversions.js';
import { plainSnapshot, sameAsSnapshot } from './plain-value-snapshot.js';

/** A prompt message as the AI SDK builds one, around strings the application holds. */
const text = fc.string({ maxLength: 8 });
const userMessage = text.map((said): PromptMessage => ({ role: 'user', content: [{ type: 'text', text: said }] }));
const callMessage = fc.tuple(text, fc.jsonValue({ maxDepth: 2 })).map(([id, input]): PromptMessage => ({
  role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${id}`, toolName: 'lookup', input: { value: input } }],
}));
const resultMessage = fc.tuple(text, text).map(([id, value]): PromptMessage => ({
  role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${id}`, toolName: 'lookup', output: { type: 'text', value } }],
}));
const message = fc.oneof(userMessage, callMessage, resultMessage);

/** A fresh copy of a prompt's objects around the same leaves, as the AI SDK rebuilds the prompt on every call. */
const rebuilt = (prompt: readonly PromptMessage[]): PromptMessage[] => prompt.map((entry) => ({
  ...entry, content: (entry.content as Record<string, unknown>[]).map((part) => ({ ...part })),
}));

/** JSON text with keys sorted: the same for two values any conversion treats alike. */
const canonical = (value: unknown): string => JSON.stringify(value, (_key, inner: unknown) => (
  inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1))) : inner
));

describe('snapshots of plain values', () => {
  it('compare equal to a value exactly when it is the same JSON, whatever its key order', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
      expect(sameAsSnapshot(plainSnapshot(a), a)).toBe(true);
      expect(sameAsSnapshot(plainSnapshot(a), b)).toBe(canonical(a) === canonical(b));
    }));
  });

  it('keep what was sent when the caller changes its objects, bytes or URLs in place', () => {
    const value = { part: { text: 'a', data: new Uint8Array([1, 2]), url: new URL('https://example.com/a') } };
    const snapshot = plainSnapshot(value);
    value.part.data[0] = 9;
    expect(sameAsSnapshot(snapshot, value)).toBe(false);
    value.part.data[0] = 1;
    value.part.url.pathname = '/b';
    expect(sameAsSnapshot(snapshot, value)).toBe(false);
    value.part.url.pathname = '/a';
    expect(sameAsSnapshot(snapshot, value)).toBe(true);
    // A class instance is never taken for unchanged.
    const instance = { at: new (class Point {
      readonly x = 1;
    })() };
    expect(sameAsSnapshot(plainSnapshot(instance), instance)).toBe(false);
  });
});

describe('PromptConversions', () => {
  it('converts every prompt as messagesFromPrompt does, however prompts extend, change or interleave', () => {
    const step = fc.record({ conversation: fc.nat({ max: 2 }), append: fc.array(message, { maxLength: 3 }), edit: fc.option(fc.tuple(fc.nat(), message), { nil: undefined }) });
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
      const conversions = new PromptConversions();
      const prompts: PromptMessage[][] = [[], [], []];
      for (const { conversation, append, edit } of steps) {
        const prompt = [...(prompts[conversation] ?? []), ...append];
        if (edit && prompt.length > 0) prompt[edit[0] % prompt.length] = edit[1];
        prompts[conversation] = prompt;
        const converted = conversions.convert(rebuilt(prompt));
        expect(converted.messages).toEqual(messagesFromPrompt(prompt));
        conversions.remember(`agent-${conversation}`, converted);
      }
    }), { numRuns: 100 });
  });

  it('reuses what it converted for the messages a placed prompt held, and converts a message changed in place again', () => {
    const conversions = new PromptConversions();
    const input = { path: 'a.txt' };
    const prompt: PromptMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'read it' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input }] },
    ];
    const first = conversions.convert(prompt);
    conversions.remember('agent', first);
    const next = conversions.convert([...rebuilt(prompt), { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'text' } }] }]);
    expect(next.messages[0]).toBe(first.messages[0]);
    expect(next.messages[1]).toBe(first.messages[1]);
    expect(next.messages).toHaveLength(3);
    conversions.remember('agent', next);
    input.path = 'b.txt';
    const changed = conversions.convert(rebuilt(prompt));
    expect(changed.messages[0]).toBe(first.messages[0]);
    expect(changed.messages[1]).not.toBe(first.messages[1]);
    expect(changed.messages[1]?.content).toEqual([{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'b.txt' } }]);
  });
});
