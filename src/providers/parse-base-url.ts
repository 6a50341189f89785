import { SlidingContextError } from '../errors/sliding-context-error.js';

/**
 * A `--base-url` flag's value, checked before anything is read or sent: an absolute `http:` or
 * `https:` URL. Undefined stays undefined (the SDK's own default).
 * @throws SlidingContextError `INVALID_OPTION` naming `flag`, for anything else
 */
export function parseBaseUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value.trim());
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new SlidingContextError('INVALID_OPTION', `${flag}: ${JSON.stringify(value)} is not an http(s) URL; give the server's address, e.g. http://127.0.0.1:8080/v1.`);
  }
  return value.trim();
}
