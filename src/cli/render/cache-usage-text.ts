import type { TurnCacheUsage } from '../../conversation/prompt-cache.js';
import { formatCount } from './format-count.js';
import { formatNumber } from './format-number.js';

/** The share of input tokens read from the prompt cache, in whole percent. */
export function cachedPercent(usage: TurnCacheUsage): number {
  return usage.inputTokens === 0 ? 0 : Math.round((100 * usage.cacheReadTokens) / usage.inputTokens);
}

/** An exchange's cache figures as a history row shows them: `cached 92%`. */
export function cachedShareText(usage: TurnCacheUsage | undefined): string | undefined {
  return usage && `cached ${cachedPercent(usage)}%`;
}

/** The session's cache figures, as the history view's last line tells them. */
export function cacheTotalLine(usage: TurnCacheUsage): string {
  const written = usage.cacheWriteTokens > 0 ? `, ${formatNumber(usage.cacheWriteTokens)} written to it` : '';
  return `Prompt cache: ${cachedPercent(usage)}% of ${formatNumber(usage.inputTokens)} input tokens read from the cache${written} · ${formatCount(usage.requests, 'request')} reported`;
}
