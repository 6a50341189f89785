import { describe, expect, it } from 'vitest';
import { isSlidingContextError } from '../../errors/sliding-context-error.js';
import { assistantFromContent, messagesFromPrompt, messagesToPrompt } from './language-model-prompt.js';

const png = new Uint8Array([137, 80, 78, 71]);

describe('the language-model prompt of the AI SDK', () => {
  it('carries v4 files, tool calls and results, and gives them back in v4 and in v3 shape', () => {
    const messages = messagesFromPrompt([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'Look it up.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'png' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'content', value: [{ type: 'text', text: 'a logo' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw==' } }] } }] },
      { role: 'user', content: [{ type: 'file', mediaType: 'application/pdf', data: { type: 'url', url: new URL('https://example.com/a.pdf') } }] },
    ]);
    expect(messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', image: 'iVBORw==', mediaType: 'image/png' }] });
    expect(messages[3]?.content).toEqual([{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'content', value: [{ type: 'text', text: 'a logo' }, { type: 'media', data: 'iVBORw==', mediaType: 'image/png' }] } }]);

    const v4 = messagesToPrompt(messages, 'v4');
    expect(v4[1]?.content).toEqual([{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw==' } }]);
    expect(v4[4]?.content).toEqual([{ type: 'file', mediaType: 'application/pdf', data: { type: 'url', url: new URL('https://example.com/a.pdf') } }]);
    const v3 = messagesToPrompt(messages, 'v3');
    expect(v3[1]?.content).toEqual([{ type: 'text', text: 'What is this?' }, { type: 'file', mediaType: 'image/png', data: 'iVBORw==' }]);
    expect(v3[3]?.content).toEqual([{ type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'content', value: [{ type: 'text', text: 'a logo' }, { type: 'file-data', data: 'iVBORw==', mediaType: 'image/png' }] } }]);
    // What goes in comes back out the same.
    expect(messagesFromPrompt(v3)).toEqual(messages);
    expect(messagesFromPrompt(v4)).toEqual(messages);
  });

  it('maps a denied execution to an error text, leaves custom parts out, and refuses what a store cannot carry, naming where', () => {
    const denied = messagesFromPrompt([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'rm', output: { type: 'execution-denied', reason: 'not allowed' } }] }]);
    expect(denied[0]?.content).toEqual([{ type: 'tool-result', toolCallId: 'c1', toolName: 'rm', output: { type: 'error-text', value: 'execution denied: not allowed' } }]);
    expect(messagesFromPrompt([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'custom', kind: 'anthropic.message_start' }] },
    ])).toHaveLength(1);
    const refusals = [
      [{ role: 'user', content: [{ type: 'file', mediaType: 'application/pdf', data: { type: 'reference', reference: { openai: 'file-1' } } }] }],
      [{ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] }],
    ];
    for (const prompt of refusals) {
      let error: unknown;
      try {
        messagesFromPrompt(prompt);
      } catch (caught) {
        error = caught;
      }
      expect(isSlidingContextError(error, 'NOT_SUPPORTED')).toBe(true);
      expect(String(error)).toMatch(/prompt\[0\]\.content\[0\]/);
    }
  });

  it('makes one assistant message of an answer: calls with parsed input, empty text left out, interrupted marked', () => {
    expect(assistantFromContent([
      { type: 'text', text: '' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"q":"x"}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: '{"q":' },
    ])).toEqual({ role: 'assistant', content: [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'lookup', input: '{"q":' },
    ] });
    expect(assistantFromContent([{ type: 'text', text: 'half' }], true)?.providerOptions).toEqual({ 'sliding-context': { interrupted: true } });
    expect(assistantFromContent([{ type: 'source', url: 'x' }])).toBeUndefined();
  });
});
