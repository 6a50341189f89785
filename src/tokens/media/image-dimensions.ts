import { imageSize } from 'image-size';

/** Width and height of an image in pixels. */
export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

const DATA_URL = /^data:[^;,]*(?:;[^;,]*)*;base64,/;
/** Enough base64 for the header of any common format; the whole image is decoded if it is not. */
const HEADER_BASE64_CHARACTERS = 65_536;

function decodeBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * Reads an image's dimensions from base64 or a data URL (PNG, JPEG, GIF, WebP, …).
 * Returns undefined for URLs, which are not fetched, and for data it cannot read.
 */
export function readImageDimensions(image: string): ImageDimensions | undefined {
  if (/^https?:\/\//i.test(image)) return undefined;
  const base64 = image.replace(DATA_URL, '').replace(/\s+/g, '');
  for (const length of [HEADER_BASE64_CHARACTERS, base64.length]) {
    try {
      const { width, height } = imageSize(decodeBase64(base64.slice(0, length - (length % 4))));
      if (width > 0 && height > 0) return { width, height };
    } catch {
      // Not enough of the image, or not an image: try the whole, then give up.
    }
    if (length >= base64.length) break;
  }
  return undefined;
}
