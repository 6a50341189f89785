import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyEvents } from '../message/apply-events.js';
import { buildRequest, convertFrom, detectFormat, type WireFormat, wireFormats } from './wire-format.js';

const fixtureDir = new URL('./__fixtures__/', import.meta.url);
const formats = ['openai-chat', 'openai-responses', 'anthropic', 'google', 'ai-sdk'] as const;
const fixtures = formats.flatMap((format) =>
  readdirSync(new URL(`${format}/`, fixtureDir))
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ format, name, body: JSON.parse(readFileSync(new URL(`${format}/${name}`, fixtureDir), 'utf8')) as unknown })),
);

function roundTrip(format: WireFormat, body: unknown) {
  const first = convertFrom(format, body);
  const given = (body as { model?: unknown }).model;
  const model = typeof given === 'string' ? given : 'model';
  const rebuilt = buildRequest(format, { model, ...first, messages: applyEvents(first.messages) });
  const second = convertFrom(format, rebuilt);
  // A body without a model gains one on the way out; everything else must come back.
  const hadModel = typeof (body as { model?: unknown }).model === 'string';
  const { model: _model, ...secondOptions } = second.options;
  return { first, rebuilt, second: hadModel ? second : { ...second, options: secondOptions } };
}

describe.each(fixtures)('$format fixture $name', ({ format, body }) => {
  it('is detected as its format', () => {
    expect(detectFormat(body)).toBe(format);
  });

  it('converts in and back out to an equivalent body', () => {
    const { first, second } = roundTrip(format, body);
    expect(second).toEqual(first);
    expect(first.messages.length).toBeGreaterThan(2);
  });
});

describe('provider fields survive the trip', () => {
  const body = (format: string, name: string) => fixtures.find((fixture) => fixture.format === format && fixture.name === name)?.body;

  it('OpenAI Chat: parallel tool calls, parsed arguments, tool names from their calls, other fields', () => {
    const { first, rebuilt } = roundTrip('openai-chat', body('openai-chat', 'parallel-tool-calls.json'));
    expect(first.messages[2]).toMatchObject({ role: 'assistant', content: [{ type: 'tool-call', toolName: 'get_current_weather', input: { location: 'San Francisco, CA' } }, {}, {}] });
    expect(first.messages[3]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'call_FthC9qRpsL5kBpwwyw6c7j4k', toolName: 'get_current_weather' }] });
    expect(rebuilt).toEqual(body('openai-chat', 'parallel-tool-calls.json'));
  });

  it('OpenAI Chat: arguments that are not JSON keep their call as raw text, and the call its output', () => {
    const given = body('openai-chat', 'invalid-arguments.json');
    const { first, rebuilt } = roundTrip('openai-chat', given);
    const raw = '{"path": "a.ts"';
    expect(first.messages[2]).toEqual({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_Qm3vXz7LkP2aRt9Yb4Nc8Hd1', toolName: 'read_file', input: raw }] });
    expect(first.messages[3]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'call_Qm3vXz7LkP2aRt9Yb4Nc8Hd1', output: { type: 'text', value: expect.stringContaining('not valid JSON') } }] });
    expect(rebuilt).toEqual(given);
    const neutral = { model: 'm', ...first, messages: applyEvents(first.messages) };
    // Anthropic and Gemini take an object: the raw text travels as { _raw_arguments } and comes back as text.
    const anthropic = buildRequest('anthropic', neutral) as { messages: { content: unknown }[] };
    expect(anthropic.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'call_Qm3vXz7LkP2aRt9Yb4Nc8Hd1', name: 'read_file', input: { _raw_arguments: raw } }]);
    const google = buildRequest('google', neutral) as { contents: { parts: unknown[] }[] };
    expect(google.contents[1]?.parts).toEqual([{ functionCall: { id: 'call_Qm3vXz7LkP2aRt9Yb4Nc8Hd1', name: 'read_file', args: { _raw_arguments: raw } } }]);
    const responses = buildRequest('openai-responses', neutral) as { input: unknown[] };
    expect(responses.input).toContainEqual({ type: 'function_call', call_id: 'call_Qm3vXz7LkP2aRt9Yb4Nc8Hd1', name: 'read_file', arguments: raw });
    for (const format of ['anthropic', 'google', 'openai-responses', 'ai-sdk'] as const) {
      const back = convertFrom(format, buildRequest(format, neutral));
      expect(back.messages.find((message) => message.role === 'assistant')).toEqual(first.messages[2]);
    }
  });

  it('a call id used again in a later turn, after its call was answered, survives every format with each result after its own call', () => {
    const given = body('openai-chat', 'reused-tool-call-id.json');
    const { first, rebuilt } = roundTrip('openai-chat', given);
    expect(rebuilt).toEqual(given);
    const neutral = { model: 'm', ...first, messages: applyEvents(first.messages) };
    const anthropic = buildRequest('anthropic', neutral) as { messages: { role: string; content: { type: string; id?: string; tool_use_id?: string }[] | string }[] };
    const blocks = anthropic.messages.map((message) => (typeof message.content === 'string' ? [] : message.content));
    const uses = blocks.flatMap((turn, index) => turn.filter((block) => block.type === 'tool_use').map((block) => ({ id: block.id, index })));
    expect(uses.map((use) => use.id)).toEqual(['call_abc', 'call_abc', 'call_abc']);
    // Each tool_result is in the very next turn, and that turn begins with it.
    for (const use of uses) expect(blocks[use.index + 1]?.[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_abc' });
    for (const format of wireFormats) {
      const back = convertFrom(format, buildRequest(format, neutral));
      const ids = applyEvents(back.messages).flatMap((message) => (typeof message.content === 'string' || message.role === 'system' ? [] : message.content.flatMap((part) => ('toolCallId' in part ? [part.toolCallId] : []))));
      expect(ids).toEqual(Array(6).fill('call_abc'));
    }
  });

  it('Anthropic: a tool result inside an assistant message goes to the user turn right after its tool_use, so a reused id stays paired', () => {
    const call = { type: 'tool-call' as const, toolCallId: 'call_abc', toolName: 'read_file', input: { path: 'a.ts' } };
    const answer = { type: 'tool-result' as const, toolCallId: 'call_abc', toolName: 'read_file', output: { type: 'text' as const, value: 'x' } };
    const body = buildRequest('anthropic', {
      model: 'm',
      messages: [{ role: 'user', content: 'Read a.ts twice.' }, { role: 'assistant', content: [call, answer, call] }, { role: 'tool', content: [answer] }],
    }) as { messages: { role: string; content: unknown }[] };
    const types = (content: unknown) => (typeof content === 'string' ? ['text'] : (content as { type: string }[]).map((block) => block.type));
    expect(body.messages.map((message) => [message.role, types(message.content)])).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
    ]);
  });

  it('Anthropic: tool results stay in the user turn, thinking keeps its signature next to its tool_use, cache_control returns', () => {
    const { first, rebuilt } = roundTrip('anthropic', body('anthropic', 'thinking-and-images.json'));
    expect(first.messages[1]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'reasoning', providerOptions: { anthropic: { signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' } } },
        { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: expect.stringMatching(/^EmwK/) } } },
        { type: 'tool-call', toolCallId: 'toolu_01Ws2vGUmzmoxm4ArW4o1sYg' },
      ],
    });
    expect(first.messages[2]).toMatchObject({ role: 'user', content: [{ type: 'tool-result', output: { type: 'content' } }] });
    expect(rebuilt).toEqual(body('anthropic', 'thinking-and-images.json'));
    const cached = roundTrip('anthropic', body('anthropic', 'tool-use.json')).rebuilt;
    expect(cached).toEqual(body('anthropic', 'tool-use.json'));
  });

  it('Anthropic: a system message among the messages (Claude Code) keeps its place and its per-turn fields', () => {
    const recorded = body('anthropic', 'claude-code-system-in-messages.json');
    const { first, rebuilt } = roundTrip('anthropic', recorded);
    // Moved before the first user message, into the preamble; the body has it back after that message.
    expect(first.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/^# Environment/), providerOptions: { anthropic: { inMessages: true, afterFirstUser: true, fields: { output_config: { effort: 'medium' } } } } });
    expect(first.messages[1]?.role).toBe('user');
    expect(first.system).toMatch(/^x-anthropic-billing-header/);
    expect(rebuilt).toEqual(recorded);
    const blocks = [{ type: 'text', text: 'Use metric units.', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'Answer briefly.' }];
    for (const content of ['Use metric units.', [{ type: 'text', text: 'Use metric units.' }], blocks]) {
      const withSystem = { model: 'm', max_tokens: 1, system: 'Be exact.', messages: [{ role: 'user', content: 'Hi.' }, { role: 'system', content }, { role: 'user', content: 'How far is it?' }] };
      expect(roundTrip('anthropic', withSystem).rebuilt).toEqual(withSystem);
    }
  });

  it('Responses: instructions, reasoning items with encrypted content, function calls and outputs', () => {
    const { first, rebuilt } = roundTrip('openai-responses', body('openai-responses', 'reasoning-and-image.json'));
    expect(first.messages[2]).toMatchObject({
      role: 'assistant',
      content: [
        { type: 'reasoning', providerOptions: { openai: { itemId: 'rs_6820f383d7c08191846711c5df8233bc', encryptedContent: 'gAAAAABoIPOEpkQ6rT3tB1Xs2bd' } } },
        { type: 'tool-call', toolName: 'read_file', input: { path: 'src/app.ts' } },
      ],
    });
    expect(rebuilt).toMatchObject({ store: false, tools: [{ name: 'read_file' }, { type: 'web_search_preview' }] });
  });

  it('Gemini: calls without ids pair with their responses by name; ids and signatures are kept', () => {
    const lights = roundTrip('google', body('google', 'function-calling.json')).first;
    expect(lights.system).toBe('You control the smart home lights.');
    expect(lights.messages[1]).toMatchObject({ content: [{ type: 'tool-call', toolCallId: 'call_1_0' }] });
    expect(lights.messages[2]).toMatchObject({ role: 'tool', content: [{ toolCallId: 'call_1_0', output: { type: 'json', value: { brightness: 25 } } }] });
    const sdk = roundTrip('google', body('google', 'sdk-thoughts-and-image.json'));
    expect(sdk.first.messages[1]).toMatchObject({ content: [{ type: 'reasoning' }, { type: 'tool-call', toolCallId: 'fc-1', providerOptions: { google: { thoughtSignature: 'CiwBVKhc7mFcXJ0ENr0c' } } }] });
    expect(sdk.rebuilt).toEqual(body('google', 'sdk-thoughts-and-image.json'));
  });
});

describe('Gemini bodies go out in the shape they came in', () => {
  const body = (name: string) => fixtures.find((fixture) => fixture.format === 'google' && fixture.name === name)?.body;

  it.each(['function-calling.json', 'rest-parallel-calls.json'])('REST %s: top-level systemInstruction, tools with parameters, generationConfig; no made-up ids', (name) => {
    const { rebuilt } = roundTrip('google', body(name));
    expect(rebuilt).toEqual(body(name));
    expect(rebuilt).not.toHaveProperty('config');
    expect(rebuilt).not.toHaveProperty('model');
    expect(JSON.stringify(rebuilt)).not.toMatch(/"id":"call_/);
  });

  it('an SDK body keeps the SDK shape; a call without an id is sent without one there too', () => {
    expect(roundTrip('google', body('sdk-thoughts-and-image.json')).rebuilt).toEqual(body('sdk-thoughts-and-image.json'));
    const idless = {
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
      ],
      config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'object' } }] }] },
    };
    const { first, rebuilt } = roundTrip('google', idless);
    expect(first.messages[1]).toMatchObject({ content: [{ type: 'tool-call', toolCallId: 'call_1_0', providerOptions: { google: { inventedId: true } } }] });
    expect(rebuilt).toEqual(idless);
  });
});

describe('bad input is a clear error naming the field', () => {
  const cases: [string, WireFormat, unknown, string, RegExp][] = [
    ['an unknown role', 'openai-chat', { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'INVALID_REQUEST_BODY', /messages\[0\]\.role: expected "system" \| "developer" \| "user" \| "assistant" \| "tool", received "robot"/],
    ['a tool result whose call is missing', 'openai-chat', { model: 'm', messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'nope', content: 'r' }] }, 'ORPHANED_TOOL_RESULT', /messages\[1\]\.tool_call_id: no earlier assistant message has a tool call "nope"/],
    ['an Anthropic tool_result without its tool_use', 'anthropic', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }] }, 'ORPHANED_TOOL_RESULT', /messages\[0\]\.content\[0\]\.tool_use_id/],
    ['an Anthropic block missing a field', 'anthropic', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] }, 'INVALID_REQUEST_BODY', /messages\[0\]\.content\[0\]\.tool_use_id: expected string/],
    ['a Responses output without its call', 'openai-responses', { model: 'm', input: [{ type: 'function_call_output', call_id: 'c9', output: 'x' }] }, 'ORPHANED_TOOL_RESULT', /input\[0\]\.call_id/],
    ['a Gemini functionResponse with no matching call', 'google', { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }, 'ORPHANED_TOOL_RESULT', /contents\[0\]\.parts\[0\]\.functionResponse: no earlier functionCall named "f" is unanswered/],
    ['a body that is not the declared format', 'anthropic', { model: 'm', input: 'hello' }, 'INVALID_REQUEST_BODY', /not a valid Anthropic Messages request: messages: expected array/],
    ['an invalid AI SDK message', 'ai-sdk', [{ role: 'user', content: [{ type: 'text', text: 1 }] }], 'INVALID_MESSAGE', /messages\[0\]\.content\[0\]\.text: expected string/],
  ];
  it.each(cases)('%s', (_name, format, body, code, message) => {
    expect(() => convertFrom(format, body)).toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));
  });

  it('says so when nothing tells the format', () => {
    expect(() => detectFormat({ hello: 'world' })).toThrow(expect.objectContaining({ code: 'UNKNOWN_FORMAT' }));
  });
});
