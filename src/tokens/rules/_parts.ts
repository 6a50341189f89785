import { decodeBase64, isUrl, splitDataUrl } from '../../message/data-url.js';
import type { FilePart, ImagePart, ModelMessage, ToolResultOutput } from '../../message/message.js';
import { pdfBytesPerPage, pdfTokensPerPage } from '../data/estimate-families.js';
import { fixed, type Measure } from '../measure.js';
import { type ImageDimensions, readImageDimensions } from '../media/image-dimensions.js';

/** Every part of a message's content, a string content being one text part. */
export function partsOf(message: ModelMessage) {
  if (typeof message.content === 'string') return [{ type: 'text' as const, text: message.content }];
  return message.content;
}

/** The media a tool result carries (`content` outputs with media items). */
export function toolOutputImages(output: ToolResultOutput): { data: string; mediaType: string }[] {
  return output.type === 'content' ? output.value.filter((item) => item.type === 'media') : [];
}

/** Dimensions given by the caller in `providerOptions['sliding-context']`, else read from the data. */
export function imageDimensionsOf(part: ImagePart): ImageDimensions | undefined {
  const given = part.providerOptions?.['sliding-context'];
  if (typeof given?.width === 'number' && typeof given.height === 'number') {
    return { width: given.width, height: given.height };
  }
  return readImageDimensions(part.image);
}

function base64Bytes(data: string): number {
  return Math.floor((splitDataUrl(data).data.length * 3) / 4);
}

/**
 * A file that is not an image: text is decoded and counted, a PDF costs an upper-end estimate per
 * page (pages guessed from its size), anything else bytes/4.
 */
export function measureFile(part: FilePart, measureText: (text: string) => Measure): Measure {
  if (isUrl(part.data)) return fixed(pdfTokensPerPage, false);
  if (part.mediaType.startsWith('text/') || part.mediaType === 'application/json') {
    try {
      const text = new TextDecoder().decode(decodeBase64(part.data));
      return { tokens: measureText(text).tokens, exact: false };
    } catch {
      // Not base64 after all: fall through to the size estimate.
    }
  }
  const bytes = base64Bytes(part.data);
  if (part.mediaType === 'application/pdf') {
    return fixed(Math.max(1, Math.ceil(bytes / pdfBytesPerPage)) * pdfTokensPerPage, false);
  }
  return fixed(Math.ceil(bytes / 4), false);
}
