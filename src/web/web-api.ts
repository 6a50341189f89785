import type { ServerResponse } from 'node:http';
import { isSlidingContextError, SlidingContextError } from '../errors/sliding-context-error.js';
import type { HistoryStore } from '../store/history-store.js';
import type { HistoryCache } from './history-cache.js';

/** Most messages one `/messages/<seq>?through=` answer holds. */
export const MESSAGES_PER_ANSWER = 500;

/** Most rows one `/timeline?count=` answer holds. */
export const TIMELINE_ROWS_PER_ANSWER = 2000;

// A seq of any form, so that one the store cannot hold is answered in JSON, not passed on.
const AGENT_PATH = /^\/api\/agents\/([^/]+)(\/history|\/timeline|\/requests|\/messages\/([^/]*))$/;

const WHOLE_NUMBER = /^\d+$/;

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
  try {
    const agentId = agentIdOf(match[1] ?? '');
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
      sendJson(response, 200, await readMessages(store, agentId, match[3] ?? '', url.searchParams.get('through')));
    }
  } catch (error) {
    if (!isSlidingContextError(error)) throw error;
    const notFound = error.code === 'UNKNOWN_AGENT' || error.code === 'UNKNOWN_MESSAGE';
    sendJson(response, notFound ? 404 : 400, { error: { code: error.code, message: error.message } });
  }
  return true;
}

/** The agent id of the path, decoded; one that is not percent-encoded right names no agent. */
function agentIdOf(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new SlidingContextError('UNKNOWN_AGENT', `"${encoded.slice(0, 100)}" is not an agent id: it is not percent-encoded right.`);
  }
}

/** The window of rows `/timeline?count=&first=` asks for. */
function timelineWindow(count: string, first: string | null): { count: number; first?: number } {
  const rows = Number(count);
  if (!WHOLE_NUMBER.test(count) || rows < 1 || rows > TIMELINE_ROWS_PER_ANSWER) {
    throw new SlidingContextError('INVALID_OPTION', `count: expected a number of rows from 1 to ${TIMELINE_ROWS_PER_ANSWER}; got "${count}".`);
  }
  if (first === null) return { count: rows };
  if (!WHOLE_NUMBER.test(first)) throw new SlidingContextError('INVALID_OPTION', `first: expected a row number from 0; got "${first}".`);
  return { count: rows, first: Number(first) };
}

/**
 * One stored message, or with `through` the agent's messages from `seq` up to it. The seqs are
 * checked against the agent's last one before the store is asked, so that a number the store's
 * column cannot hold (over 2^31 - 1) is a message not held, never a failed query.
 * @throws SlidingContextError `UNKNOWN_AGENT`; `UNKNOWN_MESSAGE` for a seq the agent did not store; `INVALID_OPTION`
 */
async function readMessages(store: HistoryStore, agentId: string, seqText: string, through: string | null) {
  if (!WHOLE_NUMBER.test(seqText)) throw new SlidingContextError('INVALID_OPTION', `seq: expected a message number from 1; got "${seqText.slice(0, 100)}".`);
  // A long digit string is a large number, never a small one: compared with the last seq, it is past it.
  const seq = Number(seqText);
  const lastSeq = await store.lastSeq(agentId);
  if (seq < 1 || seq > lastSeq) {
    const stored = lastSeq === 0 ? 'it stored none' : `it stored messages 1 to ${lastSeq}`;
    throw new SlidingContextError('UNKNOWN_MESSAGE', `Agent ${agentId} stored no message ${seqText.slice(0, 100)}: ${stored}.`);
  }
  const last = through === null ? seq : Number(through);
  if (through !== null && (!WHOLE_NUMBER.test(through) || last < seq || last - seq >= MESSAGES_PER_ANSWER)) {
    throw new SlidingContextError('INVALID_OPTION', `through: expected a seq from ${seq} to ${seq + MESSAGES_PER_ANSWER - 1}; got "${through.slice(0, 100)}".`);
  }
  const messages = await store.messages(agentId, seq, Math.min(last, lastSeq));
  if (through !== null) return { messages };
  const [message] = messages;
  if (!message) throw new SlidingContextError('UNKNOWN_MESSAGE', `Agent ${agentId} stored no message ${seq}.`);
  return message;
}
