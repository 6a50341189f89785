/** What stands in for a secret that was taken out. */
const REDACTED = '[redacted]';

/**
 * The shapes of credentials a provider's error text may echo back: bearer tokens, key headers, key
 * query parameters, OpenAI and Anthropic keys, Google API keys; in that order, so that a key inside a
 * header is taken out once. Each keeps its label (the header name, `sk-`) to say which credential it was.
 */
const SECRET_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  [/\b((?:x-api-key|x-goog-api-key|api[-_]?key|authorization|access[-_]?token)["']?\s*[:=]\s*["']?)(?!\[redacted\]|Bearer\b|Basic\b)[^\s"',;&}]+/gi, `$1${REDACTED}`],
  [/([?&](?:key|api[-_]?key|access[-_]?token|token)=)[^&#\s"']+/gi, `$1${REDACTED}`],
  [/\b(sk-(?:ant-|proj-|svcacct-|admin-)?)[A-Za-z0-9_-]{6,}/g, `$1${REDACTED}`],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, `AIza${REDACTED}`],
];

/**
 * Text with the API keys and tokens it holds replaced by `[redacted]`: for error text that a
 * provider wrote and that is shown, stored or printed as JSON (a server may echo the key it was
 * sent in a 401 body).
 */
export function redactSecrets(text: string): string {
  return SECRET_PATTERNS.reduce((redacted, [pattern, replacement]) => redacted.replace(pattern, replacement), text);
}
