import { formatNumber } from './format-number.js';

/** `1 exchange`, `2 exchanges`, `1,312 messages`: a count with its noun in agreement. */
export function formatCount(count: number, singular: string, plural = `${singular}s`): string {
  return `${formatNumber(count)} ${count === 1 ? singular : plural}`;
}
