import { ConvertedMessages } from '../providers/converted-messages.js';
import { type BuildInput, buildRequest, providerWireFormat, type WireFormat } from '../providers/wire-format.js';
import type { OpenConversationOptions } from './conversation-options.js';

/**
 * Builds a conversation's requests in its wire format (the one given, else its provider's), for
 * its model; with `reuseConvertedMessages`, each message is converted once (see `ConvertedMessages`).
 */
export class WireBodyBuilder {
  readonly #format: WireFormat;
  readonly #model: string;
  readonly #converted: ConvertedMessages | undefined;

  constructor(options: Pick<OpenConversationOptions, 'format' | 'provider' | 'model' | 'reuseConvertedMessages'>) {
    this.#format = options.format ?? providerWireFormat(options.provider);
    this.#model = options.model;
    this.#converted = options.reuseConvertedMessages === true ? new ConvertedMessages() : undefined;
  }

  /** The request body for `input`'s messages, system prompt, tools, other fields and cache hints. */
  build(input: Omit<BuildInput, 'model' | 'converted'>): unknown {
    return buildRequest(this.#format, { ...input, model: this.#model, converted: this.#converted });
  }
}
