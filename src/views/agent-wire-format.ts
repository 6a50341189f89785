import { providerWireFormat, type WireFormat, wireFormats } from '../providers/wire-format-names.js';
import { TRANSCRIPT_WIRE_FORMATS } from '../sources/transcript.js';

/**
 * The wire format an agent's requests are built in: the one its messages came in (an import's, a
 * transcript's, the proxy's endpoint), else its provider's own.
 */
export function agentWireFormat(meta: Readonly<Record<string, unknown>>, provider: string): WireFormat {
  const transcript = Object.entries(TRANSCRIPT_WIRE_FORMATS).find(([name]) => name === meta.format)?.[1];
  return transcript ?? wireFormats.find((candidate) => candidate === meta.format && candidate !== 'neutral') ?? providerWireFormat(provider);
}
