import { newAgentMeta } from '../../conversation/agent-settings.js';
import { requireValidConversation } from '../../exchange/require-valid-conversation.js';
import { applyEvents } from '../../message/apply-events.js';
import type { CliIo } from '../cli-io.js';
import { loadCliCounter } from '../load-cli-counter.js';
import { withCliStore } from '../open-cli-store.js';
import { parseConversationInput, parseFormatOption, readInputText, resolveTarget } from '../read-conversation-input.js';
import { progressBar } from '../render/progress-bar.js';
import { print, type StoreCommandFlags, type TargetFlags } from './store-commands.js';

/** Imports of at least this many messages show progress bars (on a terminal). */
const PROGRESS_FROM_MESSAGES = 2000;

/** `import <file>`: stores a conversation (any format) as a new agent, or appends to one. */
export async function runImportCommand(
  file: string,
  flags: StoreCommandFlags & TargetFlags & { readonly format?: string | undefined; readonly agent?: string | undefined },
  io: CliIo,
): Promise<void> {
  const input = parseConversationInput(await readInputText(io, file), file === '-' ? 'stdin' : file, parseFormatOption(flags.format));
  const target = resolveTarget(input, flags);
  const counter = await loadCliCounter(io, target.provider, target.model);
  const { messages } = input;
  const showProgress = io.stderrIsTerminal === true && messages.length >= PROGRESS_FROM_MESSAGES;
  const write = showProgress ? (text: string) => io.stderr.write(text) : undefined;
  await withCliStore(io, flags, async (store) => {
    // Check the conversation as a whole, after what the agent already holds, before anything is
    // written: an import is all or nothing.
    const earlier = flags.agent === undefined ? [] : (await store.history(flags.agent)).map((entry) => entry.message);
    requireValidConversation(applyEvents([...earlier, ...messages]));
    const counting = progressBar(write, 'counting', messages.length);
    const counts = messages.map((message, index) => {
      counting.update(index + 1);
      return message.role === 'event' ? null : counter.countMessage({ ...target, message });
    });
    counting.finish();
    const settings = { system: input.system, tools: input.tools };
    const agentId =
      flags.agent ?? (await store.createAgent({ ...newAgentMeta(target, settings, counter.countPreamble({ ...target, ...settings })), format: input.format }));
    const storing = progressBar(write, 'storing ', messages.length);
    const onProgress = (done: number) => {
      storing.update(done);
    };
    const { lastSeq } = await store.append(agentId, messages, { counts, countTarget: target, onProgress });
    storing.finish();
    if (!flags.json) io.stderr.write(`imported ${messages.length} messages (${input.format}${input.detected ? ', detected' : ''}); last seq ${lastSeq}\n`);
    print(io, flags.json, { agentId }, agentId);
  });
}
