import { findRewindTarget } from '../message/apply-events.js';

/** A run of one agent's seqs, both ends included. */
export interface SeqSegment {
  readonly agentId: string;
  readonly fromSeq: number;
  readonly toSeq: number;
}

/** A mark or rewind on the path, with the index of the path segment it lies in. */
export interface PathEvent {
  readonly segment: number;
  readonly seq: number;
  readonly kind: 'mark' | 'rewind';
  readonly label?: string | undefined;
}

/**
 * The parts of a lineage path that the model sees, worked out from its marks and rewinds alone:
 * each rewind hides what lies between its mark and itself, exactly as `applyEvents` does, so
 * the messages in between never need to be read. `path` starts after the most recent clear.
 * Also gives the labels of the marks still reachable at the end, oldest first.
 * @throws SlidingContextError `UNKNOWN_MARK` when a stored rewind names no reachable mark.
 */
export function visibleSegments(
  path: readonly SeqSegment[],
  events: readonly PathEvent[],
  describe: (event: PathEvent) => string,
): { segments: SeqSegment[]; marks: (string | undefined)[] } {
  // Positions on the path as one ordinal line.
  const offsets: number[] = [];
  let length = 0;
  for (const segment of path) {
    offsets.push(length);
    length += segment.toSeq - segment.fromSeq + 1;
  }
  const ordinal = (event: PathEvent) => (offsets[event.segment] ?? 0) + event.seq - (path[event.segment]?.fromSeq ?? 0);

  const marks: { label: string | undefined; position: number }[] = [];
  // Hidden ordinal ranges, [from, to), in order; a later rewind to an earlier mark swallows them.
  const hidden: { from: number; to: number }[] = [];
  for (const event of events) {
    const position = ordinal(event);
    if (event.kind === 'mark') {
      marks.push({ label: event.label, position });
      continue;
    }
    const target = findRewindTarget(marks, event.label, describe(event));
    const from = (marks[target]?.position ?? 0) + 1;
    while (hidden.length > 0 && (hidden.at(-1)?.from ?? 0) >= from) hidden.pop();
    hidden.push({ from, to: position });
    marks.length = target + 1;
  }

  const visible: SeqSegment[] = [];
  const keep = (from: number, to: number) => {
    // Split the ordinal range [from, to) back into per-agent seq runs.
    path.forEach((segment, index) => {
      const start = Math.max(from, offsets[index] ?? 0);
      const end = Math.min(to, (offsets[index] ?? 0) + segment.toSeq - segment.fromSeq + 1);
      if (start < end) {
        const base = segment.fromSeq - (offsets[index] ?? 0);
        visible.push({ agentId: segment.agentId, fromSeq: start + base, toSeq: end - 1 + base });
      }
    });
  };
  let cursor = 0;
  for (const range of hidden) {
    keep(cursor, range.from);
    cursor = range.to;
  }
  keep(cursor, length);
  return { segments: visible, marks: marks.map((mark) => mark.label) };
}
