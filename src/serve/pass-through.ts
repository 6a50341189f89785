import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerError, answerJson } from './answer-client.js';
import { forwardedHeaders, returnedHeaders } from './forwarded-headers.js';
import { providerErrorBody } from './provider-error-body.js';
import type { ProxyContext } from './proxy-context.js';
import { apiOfRequest } from './proxy-endpoints.js';
import { readRequestBody } from './read-request-body.js';

/**
 * Any other request (`/v1/models`, `/v1/messages/count_tokens`, `/v1/responses/input_tokens`, …)
 * goes to its API's upstream as it came, and the answer comes back as it is. Nothing is stored.
 * So does a Responses request that continues a conversation the upstream keeps
 * (`previous_response_id`, `conversation`): it holds only the new input, nothing to window.
 */
export async function passThrough(
  request: IncomingMessage,
  response: ServerResponse,
  target: { readonly path: string; readonly query: string },
  context: ProxyContext,
  /** The body, when it was read already. */
  read?: Buffer,
): Promise<void> {
  const api = apiOfRequest(target.path, request.headers);
  const method = request.method ?? 'GET';
  try {
    const body = read ?? (method === 'GET' || method === 'HEAD' ? undefined : await readRequestBody(request, context.bodyLimitBytes));
    const aborted = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) aborted.abort();
    });
    let upstream: Response;
    try {
      upstream = await fetch(`${context.upstreams[api]}${target.path}${target.query}`, { method, headers: forwardedHeaders(request.headers), ...(body ? { body } : {}), signal: aborted.signal });
    } catch (error) {
      if (aborted.signal.aborted) return;
      context.onProblem(`upstream ${api} unreachable: ${error instanceof Error ? error.message : String(error)}`);
      answerJson(response, 502, providerErrorBody(api, 502, `sliding-context: the upstream could not be reached (${context.upstreams[api]}).`, 'upstream_unreachable'));
      return;
    }
    response.writeHead(upstream.status, returnedHeaders(upstream.headers));
    if (upstream.body) for await (const chunk of upstream.body as AsyncIterable<Uint8Array>) response.write(chunk);
    response.end();
  } catch (error) {
    answerError(response, api, error);
  }
}
