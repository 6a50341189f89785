import type { FileAction } from './_shell-file-actions.js';

/** The first line of every digest: it says what the lines below are. */
export const DIGEST_HEADING = 'Earlier in this conversation (a digest of exchanges no longer in the context):';

/** An error a step met, and whether a later step of the same work succeeded. */
export interface DigestError {
  readonly line: string;
  resolved: boolean;
}

/**
 * What a digest knows, section by section. Maps keep their entries in the order they were last
 * touched, oldest first, so that the oldest are the first to go when the digest must shrink.
 */
export interface DigestState {
  /** What the user asked the summary to keep above all (`compact --focus`): shown first. */
  focus: string[];
  readonly requests: string[];
  readonly constraints: string[];
  readonly files: Map<string, FileAction>;
  /** Command → its latest outcome (`exit 0`, `exit 1: first error line`, `ok`, `failed: …`). */
  readonly commands: Map<string, string>;
  /** The command or `tool path` that failed → the error. */
  readonly errors: Map<string, DigestError>;
  readonly decisions: string[];
  readonly done: string[];
  /** The latest todo list or plan, its open entries as `[pending] text` or `[in progress] text`. */
  openItems: string[];
  /** Lines of a previous summary that is no digest (another summarizer's, or an older digest's). */
  readonly earlier: string[];
}

export function emptyDigestState(): DigestState {
  return {
    focus: [], requests: [], constraints: [], files: new Map(), commands: new Map(), errors: new Map(), decisions: [], done: [], openItems: [], earlier: [],
  };
}

/** The section titles, in the order the digest shows them. */
export const SECTION_TITLES = {
  focus: 'Focus (asked for):',
  requests: 'Requests:',
  constraints: 'Constraints (verbatim):',
  files: 'Files (last action):',
  commands: 'Commands (outcome):',
  errors: 'Errors:',
  decisions: 'Decisions:',
  done: 'Done:',
  openItems: 'Open items:',
  earlier: 'Earlier summary:',
} as const;

export type SectionName = keyof typeof SECTION_TITLES;

const FILE_ACTIONS: readonly string[] = ['read', 'edited', 'created', 'deleted'];

/** A line of the digest, with the section it sits in. */
export interface DigestLine {
  readonly section: SectionName;
  /** Its position in the section, oldest first. */
  readonly position: number;
  readonly text: string;
}

/** Every line of the state, section by section, as the digest shows it (without the `- `). */
export function digestLines(state: DigestState): DigestLine[] {
  const lines: DigestLine[] = [];
  const add = (section: SectionName, texts: Iterable<string>) => {
    let position = 0;
    for (const text of texts) lines.push({ section, position: position++, text });
  };
  add('focus', state.focus);
  add('requests', state.requests);
  add('constraints', state.constraints);
  add('files', [...state.files].map(([path, action]) => `${path}: ${action}`));
  add('commands', [...state.commands].map(([command, outcome]) => `\`${command}\` → ${outcome}`));
  add('errors', [...state.errors].map(([key, error]) => `[${error.resolved ? 'resolved' : 'unresolved'}] \`${key}\`: ${error.line}`));
  add('decisions', state.decisions);
  add('done', state.done);
  add('openItems', state.openItems);
  add('earlier', state.earlier);
  return lines;
}

/** The digest text of some lines: the heading, then each section that has lines. */
export function renderDigest(lines: readonly DigestLine[]): string {
  const out = [DIGEST_HEADING];
  for (const section of Object.keys(SECTION_TITLES) as SectionName[]) {
    const texts = lines.filter((line) => line.section === section).map((line) => `- ${line.text}`);
    if (texts.length === 0) continue;
    out.push(SECTION_TITLES[section]);
    for (const text of texts) out.push(text);
  }
  return out.join('\n');
}

const TITLE_SECTIONS = new Map<string, SectionName>(Object.entries(SECTION_TITLES).map(([section, title]) => [title, section as SectionName]));

/** Puts one parsed line back into its section; a line that does not parse is kept as an earlier one. */
function restoreLine(state: DigestState, section: SectionName, text: string): void {
  switch (section) {
    case 'files': {
      const cut = text.lastIndexOf(': ');
      const action = text.slice(cut + 2);
      if (cut > 0 && FILE_ACTIONS.includes(action)) state.files.set(text.slice(0, cut), action as FileAction);
      else state.earlier.push(text);
      return;
    }
    case 'commands': {
      const match = /^`(.*)` → (.*)$/.exec(text);
      if (match) state.commands.set(match[1] ?? '', match[2] ?? '');
      else state.earlier.push(text);
      return;
    }
    case 'errors': {
      const match = /^\[(resolved|unresolved)\] `(.*?)`: (.*)$/.exec(text);
      if (match) state.errors.set(match[2] ?? '', { line: match[3] ?? '', resolved: match[1] === 'resolved' });
      else state.earlier.push(text);
      return;
    }
    case 'openItems':
    case 'focus':
      state[section].push(text);
      return;
    default:
      state[section].push(text);
  }
}

/**
 * The state a digest's text holds, read back for a rolling merge. A summary that is no digest of
 * this shape (another summarizer's, or an older digest's lines) is kept line by line as `earlier`.
 */
export function parseDigest(text: string | undefined): DigestState {
  const state = emptyDigestState();
  if (text === undefined || text.trim() === '') return state;
  const [first, ...rest] = text.split('\n');
  const lines = first === DIGEST_HEADING ? rest : text.split('\n');
  let section: SectionName | undefined;
  for (const line of lines) {
    const title = TITLE_SECTIONS.get(line);
    if (title) section = title;
    else if (line.trim() === '') continue;
    else if (section && line.startsWith('- ')) restoreLine(state, section, line.slice(2));
    else state.earlier.push(line.startsWith('- ') ? line.slice(2) : line.trim());
  }
  return state;
}
