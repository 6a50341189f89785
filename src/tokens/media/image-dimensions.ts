import { imageSize } from 'image-size';
import { decodeBase64, isUrl, splitDataUrl } from '../../message/data-url.js';

/** Width and height of an image in pixels. */
export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

/** Enough base64 for the header of any common format; the whole image is decoded if it is not. */
const HEADER_BASE64_CHARACTERS = 65_536;

/**
 * Reads an image's dimensions from base64 or a data URL (PNG, JPEG, GIF, WebP, …).
 * Returns undefined for URLs, which are not fetched, and for data it cannot read.
 */
export function readImageDimensions(image: string): ImageDimensions | undefined {
  if (isUrl(image)) return undefined;
  const base64 = splitDataUrl(image).data.replace(/\s+/g, '');
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
