import { toolCallsOf, toolResultsOf } from '../exchange/tool-parts.js';
import type { ModelMessage } from '../message/message.js';
import { collapseWhitespace } from './_collapse-whitespace.js';
import type { DigestState } from './_digest-state.js';
import type { FileAction } from './_shell-file-actions.js';
import { type ToolCallReading, readToolCall } from './_tool-call-reading.js';
import { toolOutcome, type ToolOutcome } from './_tool-outcome.js';

/** A request is kept whole up to this many characters. */
export const REQUEST_CHARACTERS = 600;
/** A constraint sentence is kept verbatim up to this many characters. */
export const CONSTRAINT_CHARACTERS = 300;
const DECISION_CHARACTERS = 240;
const COMMAND_CHARACTERS = 160;
const LEDGER_REQUEST_CHARACTERS = 80;

/** A sentence the user may hold the agent to: a rule word, or a number. */
const CONSTRAINT = /\b(must|mustn't|must not|never|always|don't|do not)\b|\d/i;

/** The text on one line, clipped to `characters` with an ellipsis. */
export function clip(text: string, characters: number): string {
  const flat = collapseWhitespace(text).trim();
  return flat.length <= characters ? flat : `${flat.slice(0, characters - 1)}…`;
}

/** The text parts of a message, joined by newlines (tool calls, results and media left out). */
export function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).filter((text) => text.trim() !== '').join('\n');
}

/** The sentences of a request that hold a rule word or a number, verbatim. */
export function constraintSentences(request: string): string[] {
  return request.split(/(?<=[.!?])\s+|\n+/).map((sentence) => sentence.trim()).filter((sentence) => sentence !== '' && CONSTRAINT.test(sentence));
}

/** Which work a command or tool step is, so that a later success of the same work resolves an error. */
export function workOf(key: string): string {
  const words = key.replace(/^cd \S+ (&&|;) /, '').split(/\s+/);
  const kept: string[] = [];
  for (const word of words) {
    if (kept.length > 0 && (word.startsWith('-') || /[/.'"=]/.test(word) || kept.length >= 3)) break;
    kept.push(word);
  }
  return kept.join(' ');
}

function describeOutcome(outcome: ToolOutcome): string {
  const error = outcome.failed ? `: ${outcome.errorLine ?? 'no output'}` : '';
  if (outcome.exitCode !== undefined) return `exit ${outcome.exitCode}${error}`;
  return outcome.failed ? `failed${error}` : 'ok';
}

/** Moves a key to the end of a map (the most recent), with its new value. */
function touch<Value>(map: Map<string, Value>, key: string, value: Value): void {
  map.delete(key);
  map.set(key, value);
}

/** Adds a line unless the list holds it already, in any letter case. */
function addOnce(list: string[], text: string): void {
  const lower = text.toLowerCase();
  if (!list.some((each) => each.toLowerCase() === lower)) list.push(text);
}

/** What the ledger says an exchange changed: `edited a, b; created c`. */
function describeChanges(changed: ReadonlyMap<string, FileAction>): string {
  const byAction = new Map<FileAction, string[]>();
  for (const [path, action] of changed) byAction.set(action, [...(byAction.get(action) ?? []), path]);
  return [...byAction].map(([action, paths]) => `${action} ${paths.join(', ')}`).join('; ');
}

/** The step's key: its command, else the tool and the file it named. */
function stepKey(toolName: string, reading: ToolCallReading | undefined): string {
  if (reading?.command !== undefined) return clip(reading.command, COMMAND_CHARACTERS);
  const path = reading?.touches[0]?.path;
  return path === undefined ? toolName : `${toolName} ${path}`;
}

function recordCall(state: DigestState, reading: ToolCallReading, changed: Map<string, FileAction>): void {
  for (const { path, action: stated } of reading.touches) {
    const previous = state.files.get(path);
    const action = reading.writesWholeFile === true && previous !== undefined && previous !== 'deleted' ? 'edited' : stated;
    touch(state.files, path, action);
    if (action !== 'read') touch(changed, path, changed.get(path) === 'created' && action === 'edited' ? 'created' : action);
  }
  if (reading.plan) {
    state.openItems = reading.plan.filter((item) => item.status !== 'completed').map((item) => `[${item.status}] ${clip(item.text, 200)}`);
    for (const item of reading.plan) if (item.status === 'completed') addOnce(state.done, clip(item.text, 200));
  }
}

function recordResult(state: DigestState, key: string, command: string | undefined, outcome: ToolOutcome): void {
  if (command !== undefined) touch(state.commands, key, describeOutcome(outcome));
  if (outcome.failed) {
    touch(state.errors, key, { line: outcome.errorLine ?? 'failed', resolved: false });
    return;
  }
  const work = workOf(key);
  for (const [errorKey, error] of state.errors) if (!error.resolved && (errorKey === key || workOf(errorKey) === work)) error.resolved = true;
}

/**
 * Folds one exchange into the digest state: its request and the constraints in it, the files
 * its tool calls touched, the commands with their outcome, errors and what resolved them, the
 * final answer, a ledger line for what it changed, and the latest todo list or plan.
 */
export function foldExchange(state: DigestState, messages: readonly ModelMessage[]): void {
  const [opening] = messages;
  const request = opening?.role === 'user' ? textOf(opening).trim() : '';
  if (request !== '') {
    state.requests.push(clip(request, REQUEST_CHARACTERS));
    for (const sentence of constraintSentences(request)) addOnce(state.constraints, clip(sentence, CONSTRAINT_CHARACTERS));
  }
  const calls = new Map<string, ToolCallReading>();
  const changed = new Map<string, FileAction>();
  let answer = '';
  for (const message of messages) {
    for (const { part } of toolCallsOf(message)) {
      const reading = readToolCall(part);
      calls.set(part.toolCallId, reading);
      recordCall(state, reading, changed);
    }
    for (const { part } of toolResultsOf(message)) {
      const reading = calls.get(part.toolCallId);
      recordResult(state, stepKey(part.toolName, reading), reading?.command, toolOutcome(part.output));
    }
    if (message.role === 'assistant' && textOf(message).trim() !== '') answer = textOf(message);
  }
  if (answer !== '') state.decisions.push(clip(answer, DECISION_CHARACTERS));
  if (changed.size > 0) addOnce(state.done, `${request === '' ? 'work' : clip(request, LEDGER_REQUEST_CHARACTERS)}: ${describeChanges(changed)}`);
}
