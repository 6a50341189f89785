/** What a policy sees of one exchange. */
export interface CutExchange {
  readonly tokens: number;
  readonly messages: number;
}

/** What a policy chooses the cutoff from: the exchanges it may evict, oldest first, and what is always sent. */
export interface CutInput {
  readonly exchanges: readonly CutExchange[];
  /** Tokens always sent: the preamble, and the first exchange when pinned. */
  readonly fixedTokens: number;
  /** Messages always sent, likewise. */
  readonly fixedMessages: number;
  /** Exchanges always sent: 1 when the first is pinned, else 0. */
  readonly fixedExchanges: number;
  /** 0 disables the budget ceiling (thresholds still apply). */
  readonly budgetTokens: number;
  /** Index in `exchanges` of the first exchange the window kept last time, for policies that keep their cut. */
  readonly previousCut?: number | undefined;
}

/** Tokens of the exchanges from `first` on. */
export function sumTokens(exchanges: readonly CutExchange[], first: number): number {
  let tokens = 0;
  for (let index = first; index < exchanges.length; index++) tokens += (exchanges[index] as CutExchange).tokens;
  return tokens;
}
