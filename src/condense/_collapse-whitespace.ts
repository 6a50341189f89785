/**
 * A run of white space, or one white-space character other than a space: what
 * {@link collapseWhitespace} replaces. A lone space is left where it is, which spares a replacement
 * for every word of prose.
 */
const NOT_ONE_SPACE = /\s{2,}|[^\S ]/g;

/** The text with each run of white space as one space: what `text.replace(/\s+/g, ' ')` gives, in a fraction of its time on prose. */
export function collapseWhitespace(text: string): string {
  return text.replace(NOT_ONE_SPACE, ' ');
}
