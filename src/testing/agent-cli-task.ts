/**
 * The two-tool task the agent command lines are given, and the model's side of it as a script: each
 * turn reads one file, writes what it found there to another, then says it is done. The second turn
 * reads what the first wrote, so it only succeeds when the first turn's tool output made it back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One user turn of the task. */
export interface TaskTurn {
  readonly prompt: string;
  /** The file the model reads first, relative to the working directory. */
  readonly source: string;
  /** The file the model then writes. */
  readonly target: string;
  /** The line the model writes to `target`, made from what it read, or undefined when the read did not show it. */
  readonly written: (readOutput: string) => string | undefined;
  /** The final text's first sentence, which the command line prints. */
  readonly doneSentence: string;
}

/** What the scripted model does next. */
export type ScriptedStep =
  | { readonly kind: 'read'; readonly path: string; readonly preamble: string }
  | { readonly kind: 'write'; readonly path: string; readonly content: string; readonly preamble: string }
  | { readonly kind: 'final'; readonly text: string };

/** The task in a working directory, with the marker its notes hold. */
export interface AgentCliTask {
  readonly directory: string;
  readonly marker: string;
  readonly turns: readonly TaskTurn[];
}

/** Lines of filler in notes.txt: about 16 kB, 4k tokens, so a tool output weighs in the window. */
const NOTES_FILLER_LINES = 150;
/** Characters of filler after the final text's first sentence. */
const FINAL_TEXT_FILLER_CHARACTERS = 2_000;

function filler(characters: number): string {
  const sentence = 'The quarterly figures were checked line by line against the ledger and nothing was found amiss. ';
  return sentence.repeat(Math.ceil(characters / sentence.length)).slice(0, characters).trim();
}

/** The task for `directory`; `prepareAgentCliTask` writes its notes. */
export function agentCliTask(directory: string, marker: string): AgentCliTask {
  return {
    directory,
    marker,
    turns: [
      {
        prompt: 'Read notes.txt, find the line that starts with "marker:", and write "marker seen: <the marker>" to summary.txt.',
        source: 'notes.txt',
        target: 'summary.txt',
        written: (output) => /marker: ([\w-]+)/.exec(output)?.[1]?.replace(/^/, 'marker seen: '),
        doneSentence: 'Done: summary.txt holds the marker.',
      },
      {
        prompt: 'Read summary.txt and write "summary says: <its line>" to verdict.txt.',
        source: 'summary.txt',
        target: 'verdict.txt',
        written: (output) => /(marker seen: [\w-]+)/.exec(output)?.[1]?.replace(/^/, 'summary says: '),
        doneSentence: 'Done: verdict.txt repeats the summary.',
      },
    ],
  };
}

/** Writes the notes the first turn reads: the marker line among filler lines. */
export function prepareAgentCliTask(task: AgentCliTask): void {
  const lines: string[] = [];
  for (let line = 1; line <= NOTES_FILLER_LINES; line++) {
    if (line === NOTES_FILLER_LINES / 2) lines.push(`marker: ${task.marker}`);
    lines.push(`note ${String(line).padStart(3, '0')}: ${filler(100)}`);
  }
  writeFileSync(join(task.directory, 'notes.txt'), `${lines.join('\n')}\n`);
}

/** The content each turn's target file must end up with. */
export function expectedFiles(task: AgentCliTask): Record<string, string> {
  return {
    'summary.txt': `marker seen: ${task.marker}\n`,
    'verdict.txt': `summary says: marker seen: ${task.marker}\n`,
  };
}

/** The turn whose prompt is in `userText`, the latest user text of a request; undefined for a request that is not the task's. */
export function turnOf(task: AgentCliTask, userText: string): TaskTurn | undefined {
  return task.turns.find((turn) => userText.includes(turn.prompt));
}

/**
 * The model's next step in `turn`, given the outputs of the tools it called since the turn's prompt:
 * read, then write, then the final text. A read that did not show what the turn looks for ends the turn
 * without writing, so the task fails visibly.
 */
export function nextStep(task: AgentCliTask, turn: TaskTurn, toolOutputs: readonly string[]): ScriptedStep {
  const readOutput = toolOutputs[0];
  if (readOutput === undefined) return { kind: 'read', path: join(task.directory, turn.source), preamble: `I will read ${turn.source} first.` };
  const content = turn.written(readOutput);
  if (content === undefined) return { kind: 'final', text: `${turn.source} did not show what I was looking for.` };
  if (toolOutputs.length === 1) return { kind: 'write', path: join(task.directory, turn.target), content: `${content}\n`, preamble: `Now I write ${turn.target}.` };
  return { kind: 'final', text: `${turn.doneSentence} ${filler(FINAL_TEXT_FILLER_CHARACTERS)}` };
}

/** Rough tokens of a JSON value (4 characters a token): the usage the scripted model reports, for a proxy to calibrate with. */
export function estimatedTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}
