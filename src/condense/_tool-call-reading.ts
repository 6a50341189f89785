import { isRecord } from '../message/is-record.js';
import type { ToolCallPart } from '../message/message.js';
import { type FileAction, type FileTouch, patchFileTouches, shellFileTouches } from './_shell-file-actions.js';

/** One entry of a todo list or plan, as a todo or plan tool sets it. */
export interface PlanItem {
  readonly text: string;
  readonly status: 'pending' | 'in progress' | 'completed';
}

/** What a tool call says about the work: the files it touches, the command it runs, the plan it sets. */
export interface ToolCallReading {
  readonly touches: readonly FileTouch[];
  /** The shell command, for a shell tool. */
  readonly command?: string | undefined;
  /** The whole todo list or plan, for a todo or plan tool (Claude Code `TodoWrite`, Codex `update_plan`). */
  readonly plan?: readonly PlanItem[] | undefined;
  /** True for a whole-file write, which creates the file or rewrites one that exists. */
  readonly writesWholeFile?: boolean | undefined;
}

/** Argument names that hold one file's path, across Claude Code, Codex and common tool sets. */
const PATH_KEYS = ['file_path', 'path', 'filePath', 'filename', 'file', 'target_file', 'notebook_path', 'absolute_path', 'relative_workspace_path'];
const PATCH_START = '*** Begin Patch';
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);

function stringAt(input: Readonly<Record<string, unknown>>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** The script of a command given as words: `["bash", "-lc", script]` is the script, other words are joined. */
function scriptOfWords(words: readonly unknown[]): string {
  const strings = words.filter((word): word is string => typeof word === 'string');
  const [program, flag, script] = strings;
  if (program !== undefined && SHELLS.has(program.split('/').at(-1) ?? '') && flag !== undefined && /^-\w*c$/.test(flag) && script !== undefined) return script;
  return strings.map((word) => (/[\s'"]/.test(word) && !word.includes('\n') ? `'${word.replace(/'/g, '\'\\\'\'')}'` : word)).join(' ');
}

/** The action a tool's name implies for the file it names. */
function actionOfToolName(name: string): FileAction {
  const lower = name.toLowerCase();
  if (/delete|remove|unlink/.test(lower)) return 'deleted';
  if (/edit|replace|patch|update|insert|modify|append/.test(lower)) return 'edited';
  if (/write|create|save|new_?file/.test(lower)) return 'created';
  return 'read';
}

const EDITOR_COMMANDS: Readonly<Record<string, FileAction>> = { view: 'read', create: 'created', str_replace: 'edited', insert: 'edited', undo_edit: 'edited' };

function planStatus(value: unknown): PlanItem['status'] {
  const status = typeof value === 'string' ? value.toLowerCase().replace(/[\s_-]+/g, ' ') : '';
  return status === 'completed' || status === 'done' ? 'completed' : status === 'in progress' ? 'in progress' : 'pending';
}

/** A todo list or plan from the first argument that holds one: `todos` (Claude Code), `plan` (Codex), `items`, `tasks`. */
function planOf(input: Readonly<Record<string, unknown>>): PlanItem[] | undefined {
  for (const key of ['todos', 'plan', 'items', 'tasks']) {
    const list = input[key];
    if (!Array.isArray(list)) continue;
    const items: PlanItem[] = [];
    for (const entry of list) {
      if (!isRecord(entry)) continue;
      const text = stringAt(entry, ['content', 'step', 'text', 'title', 'description']);
      if (text !== undefined) items.push({ text, status: planStatus(entry.status) });
    }
    if (items.length > 0 || list.length === 0) return items;
  }
  return undefined;
}

/** Reads a patch given as a string argument (Codex `apply_patch`), if there is one. */
function patchIn(input: Readonly<Record<string, unknown>>): string | undefined {
  for (const value of Object.values(input)) if (typeof value === 'string' && value.includes(PATCH_START)) return value;
  return undefined;
}

/**
 * What one tool call does, from its arguments: Claude Code (`Read`, `Edit`, `MultiEdit`, `Write`,
 * `Bash`, `Glob`, `Grep`, `TodoWrite`), Codex (`shell` with its argument words, `exec_command`,
 * `apply_patch`, `update_plan`), editor tools with a `command` (`view`, `create`, `str_replace`), and
 * generic file tools by their `path`-like argument and a verb in their name.
 */
export function readToolCall(call: Pick<ToolCallPart, 'toolName' | 'input'>): ToolCallReading {
  // Codex's custom apply_patch tool is recorded with its raw patch text as the input.
  const input: Readonly<Record<string, unknown>> = typeof call.input === 'string' ? { input: call.input } : isRecord(call.input) ? call.input : {};
  const plan = planOf(input);
  if (plan) return { touches: [], plan };
  const path = stringAt(input, PATH_KEYS);
  const editorCommand = typeof input.command === 'string' ? EDITOR_COMMANDS[input.command] : undefined;
  if (editorCommand && path !== undefined) return { touches: [{ path, action: editorCommand }] };
  const patch = patchIn(input);
  if (patch !== undefined) return { touches: patchFileTouches(patch) };
  const rawCommand = input.command ?? input.cmd;
  if (Array.isArray(rawCommand) && rawCommand[0] === 'apply_patch' && typeof rawCommand[1] === 'string') return { touches: patchFileTouches(rawCommand[1]) };
  const command = typeof rawCommand === 'string' ? rawCommand.trim() : Array.isArray(rawCommand) ? scriptOfWords(rawCommand) : undefined;
  if (command !== undefined && command !== '') {
    return { touches: command.includes(PATCH_START) ? patchFileTouches(command) : shellFileTouches(command), command };
  }
  if (path === undefined) return { touches: [] };
  const action = actionOfToolName(call.toolName);
  return { touches: [{ path, action }], writesWholeFile: action === 'created' && /write/i.test(call.toolName) };
}
