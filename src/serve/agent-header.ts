import type { IncomingMessage } from 'node:http';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import { printableText } from '../message/parse-json-text.js';
import { AGENT_HEADER } from './forwarded-headers.js';

/** The longest agent name or id the header may carry, in characters. */
export const MAX_AGENT_HEADER_LENGTH = 200;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The agent a request pins with the `x-sliding-context-agent` header (a name or an id), its bytes
 * read as UTF-8 (Node gives a header's bytes one character each); undefined without one.
 * @throws SlidingContextError `INVALID_OPTION` for a header given twice, over
 * {@link MAX_AGENT_HEADER_LENGTH} characters, not UTF-8, or holding control characters
 */
export function agentHeaderOf(request: IncomingMessage): string | undefined {
  const values = request.headersDistinct[AGENT_HEADER] ?? [];
  if (values.length > 1) throw new SlidingContextError('INVALID_OPTION', `${AGENT_HEADER}: the header is given ${String(values.length)} times; give it once.`);
  const raw = values[0];
  if (raw === undefined || raw === '') return undefined;
  let name: string;
  try {
    name = utf8.decode(Buffer.from(raw, 'latin1'));
  } catch {
    throw new SlidingContextError('INVALID_OPTION', `${AGENT_HEADER}: the header is not UTF-8 text.`);
  }
  if (name.length > MAX_AGENT_HEADER_LENGTH) throw new SlidingContextError('INVALID_OPTION', `${AGENT_HEADER}: the name is ${String(name.length)} characters long; give at most ${String(MAX_AGENT_HEADER_LENGTH)}.`);
  if (printableText(name) !== name) throw new SlidingContextError('INVALID_OPTION', `${AGENT_HEADER}: the name holds control characters (${printableText(name)}); give one without them.`);
  if (name.trim() === '') throw new SlidingContextError('INVALID_OPTION', `${AGENT_HEADER}: the name is only spaces; give one with a visible character, or leave the header out.`);
  return name;
}
