import { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';

/** Keep the first exchange, then remove this share of the rest, oldest first, as Roo Code truncates. */
export interface FractionPolicy {
  readonly name: 'fraction';
  /** Share of the exchanges after the first removed per step, 0 < fraction ≤ 1 (default 0.5). */
  readonly fraction?: number | undefined;
}

/**
 * Forge's policy: when a threshold fires, the oldest exchanges outside the last
 * `retentionWindow` messages are condensed (by a summarizer, when the conversation has one),
 * else dropped oldest first until no threshold fires.
 */
export interface SequencePolicy {
  readonly name: 'sequence';
  /** The newest messages never condensed or dropped (default 6). */
  readonly retentionWindow?: number | undefined;
  /** Fire when the request reaches this many tokens. */
  readonly tokenThreshold?: number | undefined;
  /** Fire when the window holds this many messages. */
  readonly messageThreshold?: number | undefined;
  /** Fire when the window holds this many user turns (exchanges). */
  readonly turnThreshold?: number | undefined;
}

/** The budget window, plus clearing old tool outputs inside an exchange over budget on its own. */
export interface ClearToolOutputsPolicy {
  readonly name: 'clear-tool-outputs';
  /** The newest tool outputs never cleared (default 2). */
  readonly keep?: number | undefined;
  /** Tools whose outputs are never cleared. */
  readonly excludeTools?: readonly string[] | undefined;
  /** When clearing, clear at least this many tokens, so a broken prompt cache buys something (default 1,000). */
  readonly minimumTokens?: number | undefined;
}

/**
 * Keeps the window's start where it is while the request fits the budget, so that the provider's
 * prompt cache serves the request's head; when the request would pass the budget, moves the cut
 * once, down to the low-water mark, so that the next turns fit again without moving it.
 */
export interface CacheAwarePolicy {
  readonly name: 'cache-aware';
  /** The share of the budget a moved cut leaves the request at, 0 < mark ≤ 1 (default 0.9). */
  readonly lowWaterMark?: number | undefined;
}

/**
 * How the window chooses what to evict. `budget` keeps the newest whole exchanges that fit, which
 * moves the window's start on every turn; `cache-aware` (the default) moves it in steps.
 */
export type WindowPolicy = { readonly name: 'budget' } | FractionPolicy | SequencePolicy | ClearToolOutputsPolicy | CacheAwarePolicy;

/** True when the policy keeps the first exchange whatever the setting (`fraction` does). */
export function pinsFirstExchange(policy: WindowPolicy, pinFirstExchange: boolean | undefined): boolean {
  return pinFirstExchange === true || policy.name === 'fraction';
}

/** The policies by name. */
export const WINDOW_POLICY_NAMES = ['budget', 'fraction', 'sequence', 'clear-tool-outputs', 'cache-aware'] as const;

export const DEFAULT_FRACTION = 0.5;
export const DEFAULT_RETENTION_WINDOW = 6;
export const DEFAULT_KEPT_TOOL_OUTPUTS = 2;
export const DEFAULT_MINIMUM_CLEARED_TOKENS = 1_000;
export const DEFAULT_LOW_WATER_MARK = 0.9;

/** The policy when none is given: `cache-aware`, since every major provider caches the request's head. */
export const DEFAULT_WINDOW_POLICY: WindowPolicy = { name: 'cache-aware' };

const count = z.number().int().min(0);
const windowPolicySchema = z.discriminatedUnion('name', [
  z.object({ name: z.literal('budget') }).strict(),
  z.object({ name: z.literal('fraction'), fraction: z.number().gt(0).max(1).optional() }).strict(),
  z.object({
    name: z.literal('sequence'),
    retentionWindow: count.optional(),
    tokenThreshold: count.optional(),
    messageThreshold: count.optional(),
    turnThreshold: count.optional(),
  }).strict(),
  z.object({
    name: z.literal('clear-tool-outputs'),
    keep: count.optional(),
    excludeTools: z.array(z.string()).optional(),
    minimumTokens: count.optional(),
  }).strict(),
  z.object({ name: z.literal('cache-aware'), lowWaterMark: z.number().gt(0).max(1).optional() }).strict(),
]);

/** The schema of a {@link WindowPolicy}, for configuration files. */
export const WINDOW_POLICY_SCHEMA: z.ZodType<WindowPolicy> = windowPolicySchema;

/**
 * Checks a policy: a name alone (`"fraction"`) or an object with its settings.
 * @throws SlidingContextError `INVALID_POLICY`, naming the field and what was wrong
 */
export function validateWindowPolicy(value: unknown, source = 'policy'): WindowPolicy {
  const parsed = windowPolicySchema.safeParse(typeof value === 'string' ? { name: value } : value);
  if (parsed.success) return parsed.data;
  const name: unknown = typeof value === 'string' ? value : typeof value === 'object' && value !== null && 'name' in value ? value.name : undefined;
  if (typeof value === 'string' || (name !== undefined && !WINDOW_POLICY_NAMES.some((known) => known === name))) {
    // An unknown name, in words rather than the schema's: the option, the value, the choices.
    const field = typeof value === 'string' ? source : `${source}.name`;
    throw new SlidingContextError('INVALID_POLICY', `${field}: ${JSON.stringify(name)} is not a window policy; use one of ${WINDOW_POLICY_NAMES.join(', ')}.`);
  }
  const issue = parsed.error.issues[0];
  const field = [source, ...(issue?.path ?? [])].join('.');
  const hint = `one of ${WINDOW_POLICY_NAMES.join(', ')}`;
  throw new SlidingContextError('INVALID_POLICY', `${field}: ${issue?.message ?? 'invalid'} (policies: ${hint}).`);
}
