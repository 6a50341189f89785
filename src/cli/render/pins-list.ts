import type { PinHistory } from '../../conversation/exchange-history.js';
import type { PlannedPin, WindowPlan } from '../../window/window-plan.js';
import { formatCount } from './format-count.js';
import { formatNumber } from './format-number.js';

/** A pin as a line shows it: what names the message, where the window sends it, its tokens. */
export interface PinLine {
  readonly name: string;
  readonly placement: PlannedPin['placement'];
  readonly tokens: number;
}

/** An agent's pins as lines: each named by its seq (and its agent, when an ancestor's). */
export function storedPinLines(pins: readonly PinHistory[], agentId: string): PinLine[] {
  return pins.map((pin) => ({ ...pin, name: `seq ${pin.message.seq}${pin.message.agentId === agentId ? '' : ` of ${pin.message.agentId}`}` }));
}

/** A plan's pins as lines: each named by its message index (after events). */
export function plannedPinLines(pins: readonly PlannedPin[]): PinLine[] {
  return pins.map((pin) => ({ ...pin, name: `message ${pin.message}` }));
}

/**
 * The pins: a header with their number, their tokens and the least the request can take with
 * them (the preamble, every pin hoisted and the latest exchange) against the budget, then one
 * line each. Empty when nothing is pinned.
 */
export function renderPins(pins: readonly PinLine[], plan: Pick<WindowPlan, 'budgetTokens' | 'floorTokens'>): string[] {
  if (pins.length === 0) return [];
  const tokens = pins.reduce((sum, pin) => sum + pin.tokens, 0);
  const floor = plan.budgetTokens > 0 ? `; the request takes at least ${formatNumber(plan.floorTokens)} of the budget ${formatNumber(plan.budgetTokens)}` : '';
  return [
    `Pins       ${formatCount(pins.length, 'message')}, ${formatCount(tokens, 'token')}${floor}:`,
    ...pins.map((pin) => `  ${pin.name}  ${pin.placement === 'hoisted' ? 'hoisted to the preamble' : 'in place'} · ${formatCount(pin.tokens, 'token')}`),
  ];
}
