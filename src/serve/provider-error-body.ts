import type { ProxyApi } from './proxy-endpoints.js';

/** The Anthropic error type for an HTTP status, as its API names them. */
function anthropicType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The OpenAI error type for an HTTP status. */
function openAiType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * An error the proxy answers itself, in the shape the client's SDK reads: OpenAI's
 * `{ error: { message, type, param, code } }` or Anthropic's `{ type: 'error', error: { type, message } }`.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @see https://docs.anthropic.com/en/api/errors
 */
export function providerErrorBody(api: ProxyApi, status: number, message: string, code: string): unknown {
  if (api === 'anthropic') return { type: 'error', error: { type: anthropicType(status), message } };
  return { error: { message, type: openAiType(status), param: null, code: code.toLowerCase() } };
}
