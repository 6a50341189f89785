/** What was done to a file, as the digest names it. */
export type FileAction = 'read' | 'edited' | 'created' | 'deleted';

/** One file and what a step did to it. */
export interface FileTouch {
  readonly path: string;
  readonly action: FileAction;
}

/** Programs whose operands are files they read. */
const READERS = new Set(['cat', 'head', 'tail', 'less', 'more', 'nl', 'wc', 'bat', 'ls', 'tree', 'stat', 'file', 'diff', 'find']);
/** Programs whose first operand is a pattern and the rest files they read. */
const SEARCHERS = new Set(['rg', 'grep', 'egrep', 'ag', 'ack']);
/** Options of the searchers and `sed` that take a value, so that the value is no operand. */
const VALUED_OPTIONS = new Set(['-e', '-f', '-g', '--glob', '-t', '--type', '-m', '-A', '-B', '-C', '--max-count', '--include', '--exclude']);

/** A word that can name a file: no globs, variables or substitutions, and not an option. */
function isPathWord(word: string): boolean {
  return word !== '' && !word.startsWith('-') && !/[*?{}$`<>|;&()]/.test(word) && word !== '/dev/null' && word !== '.' && word !== '..';
}

/** Splits one simple command into words, honouring single and double quotes. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  let started = false;
  for (const character of command) {
    if (quote) {
      if (character === quote) quote = undefined;
      else current += character;
    } else if (character === '\'' || character === '"') {
      quote = character;
      started = true;
    } else if (/\s/.test(character)) {
      if (started || current !== '') words.push(current);
      current = '';
      started = false;
    } else {
      current += character;
    }
  }
  if (started || current !== '') words.push(current);
  return words;
}

/** The body of each here-document taken out: it is input, not commands. */
function withoutHereDocuments(script: string): string {
  return script.replace(/<<-?\s*['"]?(\w+)['"]?([^\n]*)\n[\s\S]*?\n\s*\1[ \t]*(?=\n|$)/g, '$2');
}

/** Splits a script into simple commands at `&&`, `||`, `;`, `|` and line ends (quotes aside). */
function simpleCommands(script: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (let index = 0; index < script.length; index++) {
    const character = script[index] ?? '';
    if (quote) {
      if (character === quote) quote = undefined;
      current += character;
    } else if (character === '\'' || character === '"') {
      quote = character;
      current += character;
    } else if (character === ';' || character === '\n' || character === '|' || (character === '&' && script[index + 1] === '&')) {
      if (character === '&' || (character === '|' && script[index + 1] === '|')) index++;
      commands.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  commands.push(current);
  return commands.map((command) => command.trim()).filter((command) => command !== '');
}

/** Files written by `>` and `>>`, and the words left once they are taken out. */
function redirections(words: readonly string[]): { touches: FileTouch[]; rest: string[] } {
  const touches: FileTouch[] = [];
  const rest: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? '';
    const match = /^(\d?)(>>?)(.*)$/.exec(word);
    if (!match) {
      if (word.startsWith('<') && !word.startsWith('<<')) {
        const target = word.length > 1 ? word.slice(1) : (words[++index] ?? '');
        if (isPathWord(target)) touches.push({ path: target, action: 'read' });
        continue;
      }
      rest.push(word);
      continue;
    }
    const target = match[3] !== '' ? (match[3] ?? '') : (words[++index] ?? '');
    if (target.startsWith('&')) continue;
    if (isPathWord(target)) touches.push({ path: target, action: match[2] === '>>' ? 'edited' : 'created' });
  }
  return { touches, rest };
}

/** The operands of a command: its words after the program, options and their values left out. */
function operands(words: readonly string[], valued: ReadonlySet<string> = new Set()): string[] {
  const found: string[] = [];
  let afterDoubleDash = false;
  for (let index = 1; index < words.length; index++) {
    const word = words[index] ?? '';
    if (!afterDoubleDash && word === '--') afterDoubleDash = true;
    else if (!afterDoubleDash && word.startsWith('-')) {
      if (valued.has(word)) index++;
    } else found.push(word);
  }
  return found;
}

/** What one simple command does to files. */
function commandTouches(words: readonly string[]): FileTouch[] {
  let start = 0;
  // `sudo`, `env X=1`, `time` and assignments before the program.
  while (start < words.length && (/^\w+=/.test(words[start] ?? '') || ['sudo', 'env', 'time', 'command', 'exec'].includes(words[start] ?? ''))) start++;
  const command = words.slice(start);
  const program = (command[0] ?? '').split('/').at(-1) ?? '';
  const files = (list: readonly string[], action: FileAction) => list.filter(isPathWord).map((path) => ({ path, action }));
  if (READERS.has(program)) return files(operands(command), 'read');
  if (SEARCHERS.has(program)) {
    const hasPatternOption = command.includes('-e') || command.includes('-f');
    return files(operands(command, VALUED_OPTIONS).slice(hasPatternOption ? 0 : 1), 'read');
  }
  if (program === 'sed' || program === 'perl') {
    const inPlace = command.some((word) => /^-[a-z]*i/.test(word) || word === '--in-place');
    const hasScriptOption = command.includes('-e');
    const rest = operands(command, new Set(['-e', '-f']));
    return files(rest.slice(hasScriptOption ? 0 : 1), inPlace ? 'edited' : 'read');
  }
  if (program === 'rm' || program === 'unlink' || program === 'rmdir') return files(operands(command), 'deleted');
  if (program === 'touch' || program === 'mkdir') return files(operands(command), 'created');
  if (program === 'tee') return files(operands(command), command.includes('-a') ? 'edited' : 'created');
  if (program === 'mv' || program === 'cp') {
    const rest = operands(command).filter(isPathWord);
    const target = rest.at(-1);
    if (rest.length < 2 || target === undefined) return [];
    return [...rest.slice(0, -1).map((path) => ({ path, action: program === 'mv' ? 'deleted' as const : 'read' as const })), { path: target, action: 'created' }];
  }
  if (program === 'git' && (command[1] === 'rm' || command[1] === 'mv')) return commandTouches(command.slice(1));
  return [];
}

/** What a shell script does to files, in order: readers, searchers, `sed -i`, `rm`, redirections, … */
export function shellFileTouches(script: string): FileTouch[] {
  const touches: FileTouch[] = [];
  for (const command of simpleCommands(withoutHereDocuments(script))) {
    const { touches: redirected, rest } = redirections(shellWords(command));
    for (const touch of commandTouches(rest)) touches.push(touch);
    for (const touch of redirected) touches.push(touch);
  }
  return touches;
}

/** The files a patch in the `apply_patch` format adds, updates, moves or deletes. */
export function patchFileTouches(patch: string): FileTouch[] {
  const touches: FileTouch[] = [];
  const actions: Readonly<Record<string, FileAction>> = { 'Update File': 'edited', 'Add File': 'created', 'Delete File': 'deleted', 'Move to': 'created' };
  for (const match of patch.matchAll(/^\*\*\* (Update File|Add File|Delete File|Move to): (.+)$/gm)) {
    const action = actions[match[1] ?? ''];
    const path = (match[2] ?? '').trim();
    if (action && path !== '') touches.push({ path, action });
  }
  return touches;
}
