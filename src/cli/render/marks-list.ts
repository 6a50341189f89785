import type { ReachableMark } from '../../conversation/reachable-marks.js';
import { formatAge } from './format-age.js';
import { clipText } from './format-exchange.js';
import { neutralizeControlCharacters } from './neutralize-control-characters.js';

/** A mark's label as `marks` and the `mark` confirmation show it: quoted, on one line, clipped to 60 characters, controls visible. */
export function markLabelText(label: string): string {
  return `"${neutralizeControlCharacters(clipText(label, 60))}"`;
}

/** `marks` and `/marks`: one line a mark, with its label, seq, age and the exchange it comes before. */
export function renderMarksList(agentId: string, marks: readonly ReachableMark[], now: Date): string {
  if (marks.length === 0) return `No marks a rewind of ${neutralizeControlCharacters(agentId)} can reach (set one with \`mark\`, or /mark in the chat).\n`;
  // A label is stored text: shown with its control characters visible, never sent to the terminal.
  const labels = marks.map((mark) => (mark.label === null ? '(no label)' : markLabelText(mark.label)));
  const width = labels.reduce((width, label) => Math.max(width, label.length), 5);
  const rows = marks.map((mark, index) =>
    [(labels[index] ?? '').padEnd(width), `seq ${mark.seq}`.padEnd(10), formatAge(mark.createdAt, now).padEnd(12), mark.exchange === 0 ? 'before the first exchange' : `after exchange #${mark.exchange - 1}, before #${mark.exchange}`].join('  '),
  );
  return `${['LABEL'.padEnd(width), 'SEQ'.padEnd(10), 'SET'.padEnd(12), 'EXCHANGE'].join('  ')}\n${rows.join('\n')}\n`;
}
