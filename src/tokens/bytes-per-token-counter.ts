import type { ModelMessage } from '../message/message.js';
import { sumTokenCounts } from './sum-token-counts.js';
import type { TokenCount, TokenCounter } from './token-counter.js';

const BYTES_PER_TOKEN = 4;

/** UTF-8 length of a string in bytes, without allocating an encoded copy. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function estimate(serialized: string): TokenCount {
  return {
    tokens: Math.ceil(utf8ByteLength(serialized) / BYTES_PER_TOKEN),
    exact: false,
    method: 'bytes/4',
  };
}

/** The message as it travels: its `id` is ours, not the provider's. */
function withoutId(message: ModelMessage): Omit<ModelMessage, 'id'> {
  const { id: _id, ...rest } = message;
  return rest;
}

/**
 * The last-resort counter: bytes of the serialized JSON divided by 4, rounded up per segment.
 * Conservative for prose and code; always flagged `exact: false`, `method: 'bytes/4'`.
 */
export const bytesPerTokenCounter: TokenCounter = {
  countPreamble: ({ model, system, tools }) => estimate(JSON.stringify({ model, system, tools })),
  countMessage: ({ message }) => estimate(JSON.stringify(withoutId(message))),
  count({ provider, model, request }) {
    return sumTokenCounts([
      this.countPreamble({ provider, model, system: request.system, tools: request.tools }),
      ...request.messages.map((message) => this.countMessage({ provider, model, message })),
    ]);
  },
};
