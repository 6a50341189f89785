import type { ServerResponse } from 'node:http';
import type { RecordedReply, StreamRecorder } from './recorded-reply.js';
import { ServerSentEventReader } from './server-sent-events.js';

/**
 * Passes an upstream event stream to the client chunk by chunk, as it comes, while `recorder`
 * reads it. When either side stops early (the client goes away, which aborts the upstream call,
 * or the upstream breaks off), the answer is what arrived, marked interrupted; an upstream that
 * breaks off has the client's connection cut as well, as it would be without the proxy.
 */
export async function streamToClient(
  upstream: Response,
  response: ServerResponse,
  headers: Record<string, string>,
  recorder: StreamRecorder,
  aborted: AbortController,
): Promise<RecordedReply> {
  response.writeHead(upstream.status, headers);
  response.flushHeaders();
  const events = new ServerSentEventReader();
  let broken = false;
  try {
    if (upstream.body) {
      for await (const chunk of upstream.body as AsyncIterable<Uint8Array>) {
        for (const event of events.push(chunk)) recorder.take(event);
        if (response.destroyed) break;
        if (!response.write(chunk)) await drained(response);
      }
    }
  } catch {
    broken = true;
  }
  const interrupted = broken || aborted.signal.aborted || response.destroyed || !recorder.complete;
  // An upstream that broke off breaks the client's stream too: ended cleanly, it would read as a whole answer.
  if (broken) response.destroy();
  else response.end();
  return recorder.reply(interrupted);
}

/** Waits until the response takes more, or closes. */
function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.once('drain', done);
    response.once('close', done);
  });
}
