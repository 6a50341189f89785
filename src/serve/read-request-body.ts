import type { IncomingMessage } from 'node:http';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** The default cap on a request body: 32 MiB, room for a long history with images. */
export const DEFAULT_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * A request's body, read whole; a body over `limitBytes` (by its `content-length`, or as it
 * arrives) is refused with `REQUEST_TOO_LARGE` without reading the rest.
 */
export async function readRequestBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () => new SlidingContextError('REQUEST_TOO_LARGE', `The request body is over the proxy's limit of ${limitBytes} bytes.`);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limitBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
