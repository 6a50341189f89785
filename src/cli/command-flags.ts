import { z } from 'zod';
import { SlidingContextError } from '../errors/sliding-context-error.js';
import type { StoreFlags } from './open-cli-store.js';

/** Flags shared by the store commands. */
export interface StoreCommandFlags extends StoreFlags {
  readonly json?: boolean | undefined;
}

/** Flags that choose the model and budget an agent is counted for. */
export interface TargetFlags {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  /** Tokens or `model`: a flag's text, or the config file's value. */
  readonly budget?: string | number | undefined;
  /** A policy name, or a policy object from the config file. */
  readonly policy?: unknown;
}

/** An optional text flag. */
export const textFlag = () => z.string().optional();
/** An optional on/off flag. */
export const switchFlag = () => z.boolean().optional();

/** The flags that choose the store, as every command that opens one takes them. */
export const storeFlagsShape = { dataDir: textFlag(), databaseUrl: textFlag(), json: switchFlag() };

/**
 * The flags that choose the model and budget: the budget is a flag's text or the config file's
 * number, the policy a name or the config file's policy object (checked where it is used).
 */
export const targetFlagsShape = {
  provider: textFlag(),
  model: textFlag(),
  budget: z.union([z.string(), z.number()]).optional(),
  policy: z.unknown().optional(),
};

/**
 * A command's parsed options as its flags type, by the schema the command declares: what commander
 * and the settings gave is checked, not cast.
 * @throws SlidingContextError `INVALID_OPTION` naming the flag
 */
export function parseCommandFlags<Flags>(schema: z.ZodType<Flags>, options: unknown, command: string): Flags {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const flag = String(issue?.path[0] ?? '').replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  throw new SlidingContextError('INVALID_OPTION', `${command} --${flag}: ${issue?.message ?? 'invalid'}.`);
}
