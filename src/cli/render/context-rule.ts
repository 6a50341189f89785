/** The horizontal rule drawn where the model's context begins. */
export function renderContextRule(width: number): string {
  const label = '── context ';
  return label + '─'.repeat(Math.max(2, width - label.length));
}
