/** How a provider words a "request too long" answer: its messages, and where their count and limit are. */
export interface ContextOverflowWording {
  /** Each wording, with the capture groups of the request's tokens and the model's limit, when it names them. */
  readonly patterns: readonly { readonly pattern: RegExp; readonly tokens?: number; readonly limit?: number }[];
  /** The error codes or types that say so without words. */
  readonly codes: readonly string[];
}
