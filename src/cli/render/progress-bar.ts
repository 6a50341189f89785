import { formatNumber } from './format-number.js';

/** A progress bar on a terminal's stderr: redrawn in place, at most ten times a second. */
export interface ProgressBar {
  update(done: number): void;
  /** Draws the final state and moves to the next line. */
  finish(): void;
}

const WIDTH = 30;

/** A bar for `total` items of work labelled `label`; silent when `write` is undefined. */
export function progressBar(write: ((text: string) => unknown) | undefined, label: string, total: number): ProgressBar {
  let drawnAt = 0;
  let last = 0;
  const draw = (done: number) => {
    const filled = total === 0 ? WIDTH : Math.round((WIDTH * done) / total);
    write?.(`\r${label} [${'#'.repeat(filled)}${' '.repeat(WIDTH - filled)}] ${formatNumber(done)}/${formatNumber(total)}`);
  };
  return {
    update(done) {
      last = done;
      const now = Date.now();
      if (now - drawnAt < 100) return;
      drawnAt = now;
      draw(done);
    },
    finish() {
      draw(Math.max(last, total));
      write?.('\n');
    },
  };
}
