import type { ExchangeHistory } from '../../conversation/exchange-history.js';
import { detectExchanges } from '../../exchange/detect-exchanges.js';
import type { ModelMessage } from '../../message/message.js';
import { toJson } from '../../message/to-json.js';
import { toolOutputText } from '../../message/tool-output-text.js';
import { renderContextRule } from '../render/context-rule.js';
import { formatNumber } from '../render/format-number.js';
import { neutralizeControlCharacters } from '../render/neutralize-control-characters.js';

/** How the scrollback is drawn: its width, and colors (only on a terminal, never with NO_COLOR). */
export interface ScrollbackStyle {
  readonly width: number;
  readonly color: boolean;
}

const dim = (style: ScrollbackStyle, text: string) => (style.color ? `\u001b[2m${text}\u001b[22m` : text);
const bold = (style: ScrollbackStyle, text: string) => (style.color ? `\u001b[1m${text}\u001b[22m` : text);

function clipLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/**
 * A line of text cut at spaces to fit `width` columns: the first piece led by `lead`, the others by
 * `indent` and the line's own indent, so that a wrapped line (prose, or code) keeps its indent.
 */
function wrapLine(lead: string, indent: string, text: string, width: number): string[] {
  const own = /^[ \t]*/.exec(text)?.[0] ?? '';
  const continued = own.length < width / 2 ? `${indent}${own}` : indent;
  const pieces: string[] = [];
  let rest = text;
  let room = Math.max(width - lead.length, 10);
  while (rest.length > room) {
    const space = rest.lastIndexOf(' ', room);
    const cut = space > own.length ? space : room;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^ /, '');
    room = Math.max(width - continued.length, 10);
  }
  pieces.push(rest);
  return pieces.map((piece, index) => `${index === 0 ? lead : continued}${piece}`);
}

/** Lines of a text as an editor counts them: a final newline ends the last line, it starts none. */
function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * The lines one message shows in the scrollback. What the model or a tool wrote has its control
 * characters shown, not sent: a tool output could otherwise retitle or clear the terminal.
 */
export function messageLines(message: ModelMessage, style: ScrollbackStyle): string[] {
  if (message.role === 'system') return [];
  const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  const shown = neutralizeControlCharacters;
  const interrupted = message.role === 'assistant' && message.providerOptions?.['sliding-context']?.interrupted === true;
  const lines = parts.flatMap((part): string[] => {
    if (part.type === 'text') {
      if (message.role === 'user') {
        const typed = shown(part.text).split('\n').flatMap((line, index) => wrapLine(index === 0 ? '› ' : '  ', '  ', line, style.width));
        return typed.map((line) => bold(style, line));
      }
      return shown(part.text).split('\n').flatMap((line) => wrapLine('  ', '  ', line, style.width));
    }
    if (part.type === 'tool-call') {
      const input = typeof part.input === 'string' ? part.input : toJson(part.input);
      return [dim(style, `  ⚙ ${shown(part.toolName)}(${shown(clipLine(input, style.width - part.toolName.length - 8))})`)];
    }
    if (part.type === 'tool-result') {
      const text = toolOutputText(part.output);
      const lines = countLines(text);
      const failed = part.output.type === 'error-text' || part.output.type === 'error-json';
      return [dim(style, `    → ${shown(part.toolName)}: ${failed ? `failed: ${shown(clipLine(text, style.width - 24))}` : `${formatNumber(lines)} line${lines === 1 ? '' : 's'}`}`)];
    }
    return [];
  });
  // A reply cut short (Ctrl-C, a stream that broke) says so, where it stops.
  return interrupted ? [...lines, dim(style, '  (interrupted)')] : lines;
}

/**
 * The conversation as the chat shows it: every exchange of the visible history, with the
 * `── context ──` rule where the model's context begins (after the exchanges it no longer sees)
 * and a note of the summary pinned there. `exchanges` is the `/history` view of the same history,
 * so the rule is where the window's cutoff is. `notes` are lines shown before the message at their
 * key (what `/help` and `/tokens` printed there), so that a redraw keeps them.
 */
export function renderScrollback(
  messages: readonly ModelMessage[],
  exchanges: readonly ExchangeHistory[],
  style: ScrollbackStyle,
  notes: ReadonlyMap<number, readonly string[]> = new Map(),
): string[] {
  const lines: string[] = [];
  const shownNotes = new Set<number>();
  const pushNotes = (before: number) => {
    if (shownNotes.has(before)) return;
    shownNotes.add(before);
    for (const line of notes.get(before) ?? []) lines.push(line);
  };
  const detected = detectExchanges(messages);
  if (detected.length === 0 || detected[0]?.firstMessage !== 0) pushNotes(0);
  const firstIn = exchanges.findIndex((exchange) => exchange.inWindow && !exchange.pinned);
  const summarized = exchanges.filter((exchange) => exchange.summarized).length;
  detected.forEach((exchange, index) => {
    if (index === firstIn) {
      lines.push('', renderContextRule(style.width), '');
      if (summarized > 0) lines.push(dim(style, `  (a summary of the ${summarized === 1 ? 'exchange' : `${formatNumber(summarized)} exchanges`} above is pinned here)`), '');
    }
    if (index === 0) pushNotes(exchange.firstMessage);
    for (let position = exchange.firstMessage; position <= exchange.lastMessage; position++) {
      const message = messages[position];
      if (position > exchange.firstMessage) pushNotes(position);
      for (const line of message ? messageLines(message, style) : []) lines.push(line);
    }
    lines.push('');
    pushNotes(exchange.lastMessage + 1);
  });
  if (firstIn === -1) lines.push(renderContextRule(style.width), '');
  // Notes no exchange placed (the history holds only system messages, say) close the scrollback.
  for (const before of [...notes.keys()].sort((a, b) => a - b)) pushNotes(before);
  return lines;
}
