import fc from 'fast-check';
import type { Message, ModelMessage, ToolDefinition } from '../message/message.js';

/** The shape of one generated exchange. */
interface ExchangeSpec {
  readonly kind:
    | 'plain'
    | 'tool-loop'
    | 'parallel'
    | 'interrupted'
    | 'anthropic-style'
    | 'reasoning';
  readonly steps: number;
  readonly parallel: number;
  readonly textLength: number;
  readonly huge: boolean;
  readonly systemInside: boolean;
  readonly eventBefore: 'none' | 'mark' | 'rewind' | 'clear';
  readonly markInside: boolean;
  readonly label: 'a' | 'b' | 'c';
}

const exchangeSpecArbitrary: fc.Arbitrary<Omit<ExchangeSpec, 'huge'>> = fc.record({
  kind: fc.constantFrom(
    'plain',
    'tool-loop',
    'parallel',
    'interrupted',
    'anthropic-style',
    'reasoning',
  ),
  steps: fc.integer({ min: 1, max: 3 }),
  parallel: fc.integer({ min: 1, max: 3 }),
  textLength: fc.integer({ min: 1, max: 400 }),
  systemInside: fc.boolean(),
  eventBefore: fc.constantFrom(...Array<'none'>(9).fill('none'), 'mark', 'rewind', 'clear'),
  markInside: fc.boolean(),
  label: fc.constantFrom('a', 'b', 'c'),
});

/** Options for {@link conversationArbitrary}. */
export interface ConversationArbitraryOptions {
  /** Fewest exchanges (default 0). */
  readonly minExchanges?: number;
  readonly maxExchanges?: number;
  /** Include mark, rewind and clear events. */
  readonly events?: boolean;
  /**
   * Draw call ids from a pool of four, as some models do: an id comes back once its call was
   * answered (or its exchange ended), never while it is open.
   */
  readonly reusedIds?: boolean;
}

/** A generated conversation: system prompt, tools and the raw history (events included). */
export interface GeneratedConversation {
  readonly system: string | undefined;
  readonly tools: ToolDefinition[];
  readonly messages: Message[];
}

const tools: ToolDefinition[] = [
  { name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'run_command', description: 'Run a command', inputSchema: { type: 'object' } },
];

/**
 * Realistic agent conversations: plain turns, multi-step tool loops, parallel calls,
 * interrupted exchanges, Anthropic-style results in user messages, reasoning, system messages
 * inside exchanges, huge single messages, and mark/rewind/clear events at exchange boundaries.
 */
export function conversationArbitrary(
  options: ConversationArbitraryOptions = {},
): fc.Arbitrary<GeneratedConversation> {
  return fc
    .record({
      system: fc.option(fc.constant('You are a coding agent.'), { nil: undefined }),
      leadingSystem: fc.integer({ min: 0, max: 2 }),
      specs: fc.array(
        // One exchange in twenty carries a huge (20k character) user message.
        fc
          .tuple(exchangeSpecArbitrary, fc.integer({ min: 0, max: 19 }))
          .map(([spec, roll]): ExchangeSpec => ({ ...spec, huge: roll === 0 })),
        { minLength: options.minExchanges ?? 0, maxLength: options.maxExchanges ?? 20 },
      ),
    })
    .map(({ system, leadingSystem, specs }) => {
      const messages: Message[] = [];
      let callNumber = 0;
      const text = (length: number, seed: number) =>
        `${'lorem ipsum dolor sit amet '.repeat(Math.ceil(length / 27)).slice(0, length)}#${seed}${seed % 3 === 0 ? ' \n' : ''}`;
      for (let index = 0; index < leadingSystem; index++) {
        messages.push({ role: 'system', content: `Rule ${index}: keep answers short.` });
      }
      specs.forEach((spec, exchange) => {
        if (options.events && spec.eventBefore !== 'none') {
          messages.push({ role: 'event', kind: spec.eventBefore, label: spec.label });
        }
        const length = spec.huge ? 20_000 : spec.textLength;
        messages.push({ role: 'user', content: text(length, exchange) });
        if (options.events && spec.markInside)
          messages.push({ role: 'event', kind: 'mark', label: spec.label });
        if (spec.systemInside)
          messages.push({ role: 'system', content: 'Note: the user is on call.' });
        const call = () => ({
          type: 'tool-call' as const,
          toolCallId: options.reusedIds ? `call_${++callNumber % 4}` : `call_${++callNumber}`,
          toolName: callNumber % 2 ? 'read_file' : 'run_command',
          input: { path: `src/file-${callNumber}.ts` },
        });
        const resultFor = (part: { toolCallId: string; toolName: string }) => ({
          type: 'tool-result' as const,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: { type: 'text' as const, value: text(spec.textLength * 2, callNumber) },
        });
        switch (spec.kind) {
          case 'plain':
            break;
          case 'reasoning':
            messages.push({
              role: 'assistant',
              content: [{ type: 'reasoning', text: 'thinking…' }],
            });
            break;
          case 'tool-loop':
          case 'parallel':
          case 'anthropic-style':
          case 'interrupted': {
            const width = spec.kind === 'tool-loop' ? 1 : spec.parallel;
            for (let step = 0; step < spec.steps; step++) {
              const calls = Array.from({ length: width }, call);
              messages.push({
                role: 'assistant',
                content: [{ type: 'text', text: 'Checking.' }, ...calls],
              });
              const interrupted = spec.kind === 'interrupted' && step === spec.steps - 1;
              const answered = interrupted ? calls.slice(0, calls.length - 1) : calls;
              if (answered.length === 0) continue;
              if (spec.kind === 'anthropic-style') {
                messages.push({
                  role: 'user',
                  content: [
                    ...answered.map(resultFor),
                    ...(step % 2 ? [{ type: 'text' as const, text: 'approved' }] : []),
                  ],
                });
              } else {
                messages.push({ role: 'tool', content: answered.map(resultFor) });
              }
            }
            if (spec.kind === 'interrupted') return;
            break;
          }
        }
        messages.push({ role: 'assistant', content: text(spec.textLength, exchange) });
      });
      return { system, tools, messages: repairEvents(messages) };
    });
}

/** Turns a rewind whose mark is not reachable into a mark, so that every history is valid. */
function repairEvents(messages: Message[]): Message[] {
  let marks: (string | undefined)[] = [];
  return messages.map((message) => {
    if (message.role !== 'event') return message;
    if (message.kind === 'clear') marks = [];
    if (message.kind === 'mark') marks.push(message.label);
    if (message.kind === 'rewind') {
      const target = marks.lastIndexOf(message.label);
      if (target < 0) {
        marks.push(message.label);
        return { ...message, kind: 'mark' as const };
      }
      marks.length = target + 1;
    }
    return message;
  });
}

/** Only the model messages, for tests that do not exercise events. */
export function withoutEvents(messages: readonly Message[]): ModelMessage[] {
  return messages.filter((message): message is ModelMessage => message.role !== 'event');
}
