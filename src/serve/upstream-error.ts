import { SlidingContextError } from '../errors/sliding-context-error.js';

/**
 * An upstream answer that is not a success: its status, headers and body as they came, to be
 * passed to the client unchanged. `body` (the parsed JSON) is where `contextOverflowOf` reads a
 * "request too long" answer.
 */
export class UpstreamError extends SlidingContextError {
  readonly status: number;
  readonly responseHeaders: Headers;
  readonly bodyText: string;
  readonly body: unknown;

  constructor(status: number, responseHeaders: Headers, bodyText: string) {
    super('PROVIDER_ERROR', `The upstream answered HTTP ${status}.`);
    this.status = status;
    this.responseHeaders = responseHeaders;
    this.bodyText = bodyText;
    this.body = parseOrText(bodyText);
  }
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
