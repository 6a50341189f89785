/** Names of the BPE encodings sliding-context counts with. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/** A tokenizer's encoding, reduced to what counting needs. */
export interface TextEncoding {
  readonly name: EncodingName;
  /** Tokens of `text` encoded as ordinary text: special-token strings count as text. */
  countText(text: string): number;
}
