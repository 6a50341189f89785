import type { ServerResponse } from 'node:http';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import type { HistoryStore } from '../store/history-store.js';
import type { HistoryCache } from './history-cache.js';

/** Most messages one `/messages/<seq>?through=` answer holds. */
export const MESSAGES_PER_ANSWER = 500;

/** Most rows one `/timeline?count=` answer holds. */
export const TIMELINE_ROWS_PER_ANSWER = 2000;

const AGENT_PATH = /^\/api\/agents\/([^/]+)(\/history|\/timeline|\/requests|\/messages\/(\d+))$/;

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendJsonText(response, status, JSON.stringify(value));
}

function sendJsonText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(text);
}

/**
 * The page's data, read-only: `/api/agents` (what `agents --json` prints: each agent with its
 * parent, the fork tree), `/api/agents/<id>/history` (what `history <id> --json --all` prints; `/timeline` the same
 * history shortened, see `compactTimeline`; with `?count=<n>`, only n of its rows, from
 * `?first=<row>` or else around the window's cutoff, with the counts that place them, see
 * `compactTimelineWindow`: what the page reads),
 * `/api/agents/<id>/requests` (the request tokens per turn, see `requestSeries`) and
 * `/api/agents/<id>/messages/<seq>` (one stored message of that agent whole; with
 * `?through=<seq>`, those up to there). False for any other path.
 */
export async function serveWebApi(
  store: HistoryStore,
  url: URL,
  response: ServerResponse,
  histories: HistoryCache,
): Promise<boolean> {
  if (url.pathname === '/api/agents') {
    sendJsonText(response, 200, await histories.agentsText());
    return true;
  }
  const match = AGENT_PATH.exec(url.pathname);
  if (!match) return false;
  const agentId = decodeURIComponent(match[1] ?? '');
  try {
    if (match[2] === '/history') {
      sendJsonText(response, 200, await histories.historyText(agentId));
    } else if (match[2] === '/timeline') {
      const count = url.searchParams.get('count');
      const text = count === null
        ? await histories.timelineText(agentId)
        : await histories.timelineWindowText(agentId, timelineWindow(count, url.searchParams.get('first')));
      sendJsonText(response, 200, text);
    } else if (match[2] === '/requests') {
      sendJsonText(response, 200, await histories.requestsText(agentId));
    } else {
      sendJson(response, 200, await readMessages(store, agentId, Number(match[3]), url.searchParams.get('through')));
    }
  } catch (error) {
    if (!isSlidingContextError(error)) throw error;
    sendJson(response, error.code === 'UNKNOWN_AGENT' ? 404 : 400, { error: { code: error.code, message: error.message } });
  }
  return true;
}

/** The window of rows `/timeline?count=&first=` asks for. */
function timelineWindow(count: string, first: string | null): { count: number; first?: number } {
  const rows = Number(count);
  if (!/^\d+$/.test(count) || rows < 1 || rows > TIMELINE_ROWS_PER_ANSWER) {
    throw new SlidingContextError('INVALID_OPTION', `count: expected a number of rows from 1 to ${TIMELINE_ROWS_PER_ANSWER}; got "${count}".`);
  }
  if (first === null) return { count: rows };
  if (!/^\d+$/.test(first)) throw new SlidingContextError('INVALID_OPTION', `first: expected a row number from 0; got "${first}".`);
  return { count: rows, first: Number(first) };
}

/** One stored message, or with `through` the agent's messages from `seq` up to it. */
async function readMessages(store: HistoryStore, agentId: string, seq: number, through: string | null) {
  if (through === null) {
    const [message] = await store.messages(agentId, seq, seq);
    if (!message) throw new SlidingContextError('UNKNOWN_AGENT', `Agent ${agentId} stored no message ${seq}.`);
    return message;
  }
  const last = Number(through);
  if (!Number.isInteger(last) || last < seq || last - seq >= MESSAGES_PER_ANSWER) {
    throw new SlidingContextError('INVALID_OPTION', `through: expected a seq from ${seq} to ${seq + MESSAGES_PER_ANSWER - 1}; got "${through}".`);
  }
  return { messages: await store.messages(agentId, seq, last) };
}
