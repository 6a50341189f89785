import { createHash } from 'node:crypto';
import { startLoopbackServer, type LoopbackAnswer } from './loopback-server.js';

/** The Messages API's limit on `cache_control` breakpoints in one request. */
const MAX_BREAKPOINTS = 4;

/** What one request's prefix caching came to, as the server reported it in `usage`. */
export interface CacheOutcome {
  readonly breakpoints: number;
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
}

export interface AnthropicCacheServerOptions {
  /** A prefix shorter than this is not cached (the API's minimum is 1,024 tokens for Sonnet). */
  readonly minimumTokens?: number | undefined;
  /** How many blocks before a breakpoint are checked for an earlier entry (the API checks about 20). */
  readonly lookbackBlocks?: number | undefined;
  /** The reply's text for the request at this index. */
  readonly reply?: ((index: number) => string) | undefined;
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request as the cache sees it: tools, then system, then messages, one entry per block; which blocks carry a breakpoint. */
function blocksOf(body: Json): { keys: string[]; tokens: number[]; breakpoints: number[] } {
  const keys: string[] = [];
  const breakpoints: number[] = [];
  const add = (where: string, block: unknown) => {
    const { cache_control: marker, ...rest } = isRecord(block) ? block : { text: block };
    if (marker) breakpoints.push(keys.length);
    keys.push(`${where}:${JSON.stringify(rest)}`);
  };
  for (const tool of Array.isArray(body.tools) ? body.tools : []) add('tool', tool);
  if (typeof body.system === 'string') add('system', { type: 'text', text: body.system });
  else if (Array.isArray(body.system)) for (const block of body.system) add('system', block);
  for (const message of Array.isArray(body.messages) ? (body.messages as Json[]) : []) {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as unknown[]);
    for (const block of content) add(String(message.role), block);
  }
  // The top-level marker marks the last cacheable block.
  if (body.cache_control && keys.length > 0) breakpoints.push(keys.length - 1);
  return { keys, tokens: keys.map((key) => Math.ceil(key.length / 4)), breakpoints };
}

/**
 * A loopback Anthropic Messages server with prefix caching as the API documents it: each
 * breakpoint (a block's `cache_control`, or the top-level marker on the last block) writes the
 * prefix up to it; a later request reads the longest prefix written before that ends at one of
 * its breakpoints or up to `lookbackBlocks` blocks before one. `usage` reports the read part as
 * `cache_read_input_tokens`, the newly written part as `cache_creation_input_tokens`, the rest as
 * `input_tokens`. More than four breakpoints are refused with a 400, as the API refuses them.
 * Tokens are a quarter of each block's JSON length. Answers streamed or whole, as asked.
 */
export async function startAnthropicCacheServer(options: AnthropicCacheServerOptions = {}) {
  const minimum = options.minimumTokens ?? 0;
  const lookback = options.lookbackBlocks ?? 20;
  const written = new Set<string>();
  const outcomes: CacheOutcome[] = [];
  const answer = (body: Json): LoopbackAnswer => {
    const { keys, tokens, breakpoints } = blocksOf(body);
    const unique = [...new Set(breakpoints)].sort((a, b) => a - b);
    if (breakpoints.length > MAX_BREAKPOINTS) {
      return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.` } } };
    }
    const prefixKeys: string[] = [];
    const through: number[] = [];
    const hash = createHash('sha256');
    keys.forEach((key, index) => {
      hash.update(key).update('\u0000');
      prefixKeys.push(hash.copy().digest('hex'));
      through.push((through[index - 1] ?? 0) + (tokens[index] ?? 0));
    });
    let readEnd = -1;
    for (const point of unique) {
      for (let index = point; index >= Math.max(0, point - lookback); index--) {
        if (written.has(prefixKeys[index] as string)) {
          readEnd = Math.max(readEnd, index);
          break;
        }
      }
    }
    const cacheable = unique.filter((point) => (through[point] ?? 0) >= minimum);
    const lastPoint = cacheable.at(-1) ?? -1;
    for (const point of cacheable) written.add(prefixKeys[point] as string);
    const total = through.at(-1) ?? 0;
    const read = readEnd === -1 ? 0 : (through[readEnd] ?? 0);
    const write = lastPoint > readEnd ? (through[lastPoint] ?? 0) - read : 0;
    const outcome = { breakpoints: breakpoints.length, input_tokens: total - read - write, cache_read_input_tokens: read, cache_creation_input_tokens: write };
    outcomes.push(outcome);
    const text = options.reply?.(outcomes.length - 1) ?? `Answer ${outcomes.length}.`;
    const usage = { input_tokens: outcome.input_tokens, cache_read_input_tokens: read, cache_creation_input_tokens: write, output_tokens: 5 };
    const message = { id: `msg_${outcomes.length}`, type: 'message', role: 'assistant', model: body.model, stop_sequence: null };
    if (body.stream !== true) return { status: 200, body: { ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn', usage } };
    const events: Json[] = [
      { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
      { type: 'message_stop' },
    ];
    return { status: 200, sse: events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('') };
  };
  const server = await startLoopbackServer((request) => (isRecord(request.body) ? answer(request.body) : { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'no body' } } }));
  return { ...server, outcomes };
}
