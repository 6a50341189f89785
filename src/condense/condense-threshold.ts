/** The lowest and highest condense thresholds accepted, in percent of the context window. */
export const MIN_CONDENSE_THRESHOLD = 5;
export const MAX_CONDENSE_THRESHOLD = 100;

/** The condense threshold used when none is configured, in percent of the context window. */
export const DEFAULT_CONDENSE_THRESHOLD = 75;

/**
 * The threshold in force for a profile: the profile's own when it is set and within 5–100, the
 * global one when it is −1 or missing. An out-of-range value is reported through `warn` (which
 * should log it) and the global value is used instead.
 */
export function resolveCondenseThreshold(options: {
  readonly globalPercent: number;
  readonly profilePercents?: Readonly<Record<string, number>> | undefined;
  readonly profile?: string | undefined;
  readonly warn: (message: string) => void;
}): number {
  const own = options.profile === undefined ? undefined : options.profilePercents?.[options.profile];
  if (own === undefined || own === -1) return options.globalPercent;
  if (Number.isFinite(own) && own >= MIN_CONDENSE_THRESHOLD && own <= MAX_CONDENSE_THRESHOLD) return own;
  options.warn(
    `Condense threshold ${own} for profile "${String(options.profile)}" is outside ${MIN_CONDENSE_THRESHOLD}–${MAX_CONDENSE_THRESHOLD} (or −1 to inherit); using the global ${options.globalPercent}%.`,
  );
  return options.globalPercent;
}

/**
 * Whether to condense: the context is at or past the threshold percentage of the window, or the
 * request is over the tokens allowed.
 */
export function shouldCondense(input: {
  readonly tokens: number;
  readonly contextWindowTokens: number;
  readonly allowedTokens: number;
  readonly thresholdPercent: number;
}): boolean {
  if (input.allowedTokens > 0 && input.tokens > input.allowedTokens) return true;
  return input.contextWindowTokens > 0 && (100 * input.tokens) / input.contextWindowTokens >= input.thresholdPercent;
}
