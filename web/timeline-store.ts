import { type TimelineRowView, windowRows } from './timeline-rows.js';
import { agentPath, getJson, type TimelineWindowJson } from './web-data.js';

/** Rows read at a time as the list scrolls to rows not read yet. */
export const ROWS_PER_READ = 500;

/** Rows read for the first render: around the cutoff, where the list first scrolls to. */
export const FIRST_ROWS = 300;

/** The first rows of an agent's timeline, as the page reads them before anything else. */
export function readFirstRows(agentId: string): Promise<TimelineWindowJson> {
  return getJson<TimelineWindowJson>(`${agentPath(agentId)}/timeline?count=${FIRST_ROWS}`);
}

/**
 * An agent's timeline as far as the page has read it: the rows of the first answer, and more
 * read in runs of {@link ROWS_PER_READ} as the list shows rows not read yet. Made afresh after
 * each write (the rows read before may have changed); a run read after the timeline changed
 * (its row count differs) is dropped, and read again with the next.
 */
export class TimelineStore {
  readonly agentId: string;
  /** The first answer: the header figures, the summary, the row count, the cutoff and the bars' scale. */
  readonly head: TimelineWindowJson;
  readonly #rows: (TimelineRowView | undefined)[];
  readonly #reading = new Set<number>();
  readonly #changed: () => void;

  /** `changed` is called when rows arrive. */
  constructor(agentId: string, head: TimelineWindowJson, changed: () => void) {
    this.agentId = agentId;
    this.head = head;
    this.#rows = new Array<TimelineRowView | undefined>(head.rowCount);
    this.#changed = changed;
    this.#place(head);
  }

  /** The row of that number, if read. */
  row(position: number): TimelineRowView | undefined {
    return this.#rows[position];
  }

  /** Reads the rows from `first` through `last` not read yet (and not being read). */
  want(first: number, last: number): void {
    const from = Math.max(0, first);
    const through = Math.min(this.#rows.length - 1, last);
    for (let run = Math.floor(from / ROWS_PER_READ); run * ROWS_PER_READ <= through; run++) {
      const start = run * ROWS_PER_READ;
      if (this.#reading.has(run)) continue;
      let missing = false;
      const end = Math.min(through, start + ROWS_PER_READ - 1);
      for (let position = Math.max(start, from); position <= end && !missing; position++) missing = this.#rows[position] === undefined;
      if (!missing) continue;
      this.#reading.add(run);
      getJson<TimelineWindowJson>(`${agentPath(this.agentId)}/timeline?count=${ROWS_PER_READ}&first=${start}`)
        .then((answer) => {
          if (answer.rowCount !== this.#rows.length || answer.cutoffRow !== this.head.cutoffRow) return;
          this.#place(answer);
          this.#changed();
        })
        .catch(() => undefined)
        .finally(() => this.#reading.delete(run));
    }
  }

  #place(answer: TimelineWindowJson): void {
    for (const [offset, row] of windowRows(answer).entries()) this.#rows[answer.firstRow + offset] = row;
  }
}
