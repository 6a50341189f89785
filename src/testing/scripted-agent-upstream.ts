/**
 * A loopback upstream that plays the model for the agent command lines: `POST /v1/responses` for
 * Codex, `POST /v1/messages` for Claude Code, and the count endpoint Claude Code may call. Every
 * request is kept, headers and body, so a test can judge what reached it.
 */
import { estimatedTokens, type AgentCliTask } from './agent-cli-task.js';
import { startLoopbackServer, type LoopbackAnswer, type ReceivedRequest } from './loopback-server.js';
import { answerMessagesRequest } from './messages-model-script.js';
import { answerResponsesRequest } from './responses-model-script.js';

function answer(task: AgentCliTask, request: ReceivedRequest, requestNumber: number): LoopbackAnswer {
  const path = request.path.split('?')[0];
  if (request.method === 'POST' && path === '/v1/responses') return answerResponsesRequest(task, request.body, requestNumber);
  if (request.method === 'POST' && path === '/v1/messages/count_tokens') return { status: 200, body: { input_tokens: estimatedTokens(request.body) } };
  if (request.method === 'POST' && path === '/v1/messages') return answerMessagesRequest(task, request.body, requestNumber);
  return { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: `The scripted upstream does not serve ${request.method} ${request.path}.` } } };
}

/** Starts the upstream on 127.0.0.1 at a free port; `received` lists every request in order. Call `close()` when done. */
export async function startScriptedAgentUpstream(task: AgentCliTask) {
  let requestNumber = 0;
  return startLoopbackServer((request) => answer(task, request, ++requestNumber));
}
