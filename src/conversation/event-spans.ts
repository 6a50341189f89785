import type { ConversationEvent } from './conversation-events.js';

/** The part of `@opentelemetry/api` used here. */
interface TraceApi {
  readonly trace: {
    getTracer(name: string): {
      startSpan(name: string, options: { attributes: Record<string, string | number> }): { end(): void };
    };
  };
}

/** Optional: the package is used when the application has it installed, and never required. */
const OPENTELEMETRY_API = '@opentelemetry/api';

let loading: Promise<TraceApi | undefined> | undefined;

/** The event's scalar fields, flattened (`cost.inputTokens`), as span attributes. */
function attributesOf(value: unknown, prefix = '', into: Record<string, string | number> = {}): Record<string, string | number> {
  if (typeof value === 'string' || typeof value === 'number') into[prefix] = value;
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) attributesOf(inner, prefix ? `${prefix}.${key}` : key, into);
  } else if (Array.isArray(value)) into[`${prefix}.count`] = value.length;
  return into;
}

/**
 * A recorder that turns each conversation event into an OpenTelemetry span named
 * `sliding-context.<type>`, through the tracer the application registered; a recorder that does
 * nothing when `@opentelemetry/api` is not installed.
 */
export async function loadEventSpans(): Promise<(event: ConversationEvent) => void> {
  loading ??= import(OPENTELEMETRY_API).then((api: TraceApi) => api, () => undefined);
  const api = await loading;
  if (!api) return () => undefined;
  return (event) => {
    api.trace.getTracer('sliding-context').startSpan(`sliding-context.${event.type}`, { attributes: attributesOf(event) }).end();
  };
}
