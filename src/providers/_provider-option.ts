import type { ProviderOptions } from '../message/message.js';

/** `providerOptions[provider][key]`, the place provider-only fields travel in. */
export function providerOption(options: ProviderOptions | undefined, provider: string, key: string): unknown {
  return options?.[provider]?.[key];
}

/** The same, when it is a string. */
export function providerString(options: ProviderOptions | undefined, provider: string, key: string): string | undefined {
  const value = providerOption(options, provider, key);
  return typeof value === 'string' ? value : undefined;
}
