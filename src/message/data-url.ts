/** Splits `data:<type>;base64,<data>` into its media type and data; plain base64 passes through. */
export function splitDataUrl(value: string, fallbackMediaType = 'application/octet-stream'): { mediaType: string; data: string } {
  const match = /^data:([^;,]+)?(?:;[^,]*)?;base64,(.*)$/s.exec(value);
  return match ? { mediaType: match[1] ?? fallbackMediaType, data: match[2] ?? '' } : { mediaType: fallbackMediaType, data: value };
}

/** True for an http(s) URL. */
export const isUrl = (value: string) => /^https?:\/\//i.test(value);

/** The bytes of base64 text (a data URL's prefix and white space are skipped). */
export function decodeBase64(value: string): Uint8Array {
  const binary = atob(splitDataUrl(value).data.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
