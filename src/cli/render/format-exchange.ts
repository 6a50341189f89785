/** Clips text to at most `width` characters on one line, marking the cut with `…`. */
export function clipText(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1)).trimEnd()}…`;
}

/** `read_file×3, run_command` */
export function formatToolUse(tools: ReadonlyMap<string, number>): string {
  return [...tools].map(([name, count]) => (count > 1 ? `${name}×${count}` : name)).join(', ');
}
