/** Renders rows as a GitHub markdown table. */
export function markdownTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}

/** Median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The value below which `fraction` of `values` lie (nearest rank); NaN for none. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}

/** Runs `work` `repeat` times and returns the median duration in milliseconds. */
export function timeMedian(repeat: number, work: () => unknown): number {
  const durations: number[] = [];
  for (let round = 0; round < repeat; round++) {
    const start = performance.now();
    work();
    durations.push(performance.now() - start);
  }
  return median(durations);
}

export const formatMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3));
export const formatRatio = (ratio: number) => `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}×`;
