/**
 * The blocks Codex puts in user messages of its own (the environment, AGENTS.md instructions,
 * …), each by how its text starts and ends: context the model is given, not what the user asked.
 */
const CONTEXT_BLOCKS: readonly (readonly [start: string, end: string])[] = [
  ['<environment_context>', '</environment_context>'],
  ['# AGENTS.md instructions', '</INSTRUCTIONS>'],
  ['<user_instructions>', '</user_instructions>'],
  ['<turn_aborted>', '</turn_aborted>'],
];

/**
 * True when a user message's whole text is one block Codex injected. Such a message is read as a
 * system message sent as a user one (`providerOptions.openai.role`): it does not start an
 * exchange, so before the first request it stays in every window, and it is not an agent's title.
 */
export function isInjectedContext(text: string): boolean {
  const trimmed = text.trim();
  return CONTEXT_BLOCKS.some(([start, end]) => trimmed.startsWith(start) && trimmed.endsWith(end));
}
