import type { ServerResponse } from 'node:http';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import { providerErrorBody } from './provider-error-body.js';
import type { ProxyApi } from './proxy-endpoints.js';

/** Sends a JSON body, unless the response has begun (a stream already started is ended instead). */
export function answerJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}

/** The HTTP status for an error the proxy raises itself. */
function statusOf(error: unknown): number {
  if (!isSlidingContextError(error)) return 500;
  if (error.code === 'REQUEST_TOO_LARGE') return 413;
  if (error.code === 'UNAUTHORIZED') return 401;
  if (error.code === 'FORBIDDEN') return 403;
  if (SlidingContextError.isInvalidInput(error)) return 400;
  if (['INVALID_MESSAGE', 'INVALID_CONVERSATION', 'ORPHANED_TOOL_RESULT', 'DUPLICATE_TOOL_CALL_ID', 'DUPLICATE_TOOL_RESULT', 'NOT_SUPPORTED', 'INPUT_NOT_TEXT', 'INPUT_TOO_DEEP'].includes(error.code)) return 400;
  if (error.code === 'CONTEXT_OVERFLOW') return 400;
  return 500;
}

/**
 * Answers an error the proxy raised in the client's provider's shape: bad input as 400 (413 for a
 * body over the cap, 401 for a wrong token, 403 for a foreign host or origin) with its one-sentence message, anything else as 500.
 */
export function answerError(response: ServerResponse, api: ProxyApi, error: unknown, headers: Record<string, string> = {}): void {
  const status = statusOf(error);
  const message = isSlidingContextError(error) ? error.message : 'The proxy failed to handle the request; see its log.';
  const code = isSlidingContextError(error) ? error.code : 'PROXY_ERROR';
  answerJson(response, status, providerErrorBody(api, status, `sliding-context: ${message}`, code), { ...headers, ...(status === 413 ? { connection: 'close' } : {}) });
}
