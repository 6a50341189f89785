/** One event of a server-sent event stream: its name, when it has one, and its data parsed as JSON. */
export interface ServerSentEvent {
  readonly event: string | undefined;
  /** The data as JSON, or undefined when it is not JSON (`[DONE]`). */
  readonly data: unknown;
}

/**
 * Reads a server-sent event stream as it arrives, in chunks cut anywhere: `push` gives the events
 * its text completed.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream
 */
export class ServerSentEventReader {
  readonly #decoder = new TextDecoder();
  #pending = '';

  push(chunk: Uint8Array): ServerSentEvent[] {
    this.#pending += this.#decoder.decode(chunk, { stream: true }).replaceAll('\r\n', '\n');
    const events: ServerSentEvent[] = [];
    let end = this.#pending.indexOf('\n\n');
    while (end >= 0) {
      const block = this.#pending.slice(0, end);
      this.#pending = this.#pending.slice(end + 2);
      const event = parseBlock(block);
      if (event) events.push(event);
      end = this.#pending.indexOf('\n\n');
    }
    return events;
  }
}

function parseBlock(block: string): ServerSentEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    return { event, data: JSON.parse(data.join('\n')) as unknown };
  } catch {
    return { event, data: undefined };
  }
}
