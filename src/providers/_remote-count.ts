import type { CountableRequest, CountTarget, TokenCount, TokenCounter } from '../tokens/token-counter.js';

/** A provider's count-tokens call for one request, with the body it sends and the part of the request it leaves to our estimate. */
export interface RemoteCount {
  readonly body: unknown;
  readonly call: () => PromiseLike<number>;
  readonly estimatedPart?: TokenCount | undefined;
}

/** Prepares a provider's count-tokens call through its SDK client; `counter` estimates what the provider cannot count. */
export type PreflightCount<Client> = (client: Client, target: CountTarget, request: CountableRequest, counter: TokenCounter) => RemoteCount;
