import type { ModelMessage, ToolDefinition } from '../message/message.js';
import { toJson } from '../message/to-json.js';

/** A request in the neutral model, as every builder takes it. */
export interface NeutralRequest {
  readonly model: string;
  readonly system?: string | undefined;
  readonly tools?: readonly ToolDefinition[] | undefined;
  readonly messages: readonly ModelMessage[];
}

/** Splits `data:<type>;base64,<data>` into its media type and data; plain base64 passes through. */
export function splitDataUrl(value: string, fallbackMediaType = 'application/octet-stream'): { mediaType: string; data: string } {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(value);
  return match ? { mediaType: match[1] ?? fallbackMediaType, data: match[2] ?? '' } : { mediaType: fallbackMediaType, data: value };
}

/** True for an http(s) URL. */
export const isUrl = (value: string) => /^https?:\/\//i.test(value);

/** The text a tool result carries, JSON values serialized. */
export function toolResultText(output: { type: string; value: unknown }): string {
  if (typeof output.value === 'string') return output.value;
  if (output.type === 'content' && Array.isArray(output.value)) {
    return output.value.map((item: { type?: string; text?: string }) => (item.type === 'text' ? (item.text ?? '') : '')).join('\n');
  }
  return toJson(output.value);
}
