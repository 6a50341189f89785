import type { ProxyApi } from './proxy-endpoints.js';
import type { ProxyConversations } from './proxy-conversations.js';
import type { EarlierElements } from './earlier-elements.js';
import type { RequestBodyBytes } from './request-body-bytes.js';
import type { TailConversion } from './tail-conversion.js';

/** What every request handler of a running proxy shares. */
export interface ProxyContext {
  readonly conversations: ProxyConversations;
  /** Request bodies to neutral messages, each converting only what the body before it in its conversation did not hold. */
  readonly conversions: TailConversion;
  /** The elements of earlier bodies' arrays, so that a body parses only what its client added. */
  readonly earlierElements: EarlierElements;
  /** The bytes of the upstream bodies' elements, each serialized once. */
  readonly bodyBytes: RequestBodyBytes;
  /** Each API's upstream base URL, without a trailing `/v1` (e.g. `https://api.openai.com`). */
  readonly upstreams: Readonly<Record<ProxyApi, string>>;
  readonly bodyLimitBytes: number;
  /** A request the proxy could not serve, for the operator (never a key, a header or a body). */
  readonly onProblem: (problem: string) => void;
}
