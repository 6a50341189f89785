/**
 * A coding session as a script for a framework's real agent loop: each turn's user request, the
 * tool calls the model makes step by step, each call's output, and the final answer, all cut from
 * the seeded agent traffic. The model's side is played by a loopback server; the tools answer
 * with the output scripted for their call id.
 */
import { agentTraffic, TRAFFIC_SEED } from './agent-traffic.js';

export interface ScriptedCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: Record<string, unknown>;
}

/** One model step that calls tools: the text said with the calls, and the calls. */
export interface ScriptedStep {
  readonly text: string | undefined;
  readonly calls: readonly ScriptedCall[];
}

export interface ScriptedTurn {
  readonly user: string;
  readonly steps: readonly ScriptedStep[];
  readonly answer: string;
}

export interface ScriptedSession {
  readonly turns: readonly ScriptedTurn[];
  /** Each tool call's output, by call id. */
  readonly outputs: ReadonlyMap<string, string>;
}

/** `turns` exchanges of seeded coding traffic, as a script. */
export function scriptedSession(turns: number, seed: number = TRAFFIC_SEED): ScriptedSession {
  const traffic = agentTraffic(seed);
  const outputs = new Map<string, string>();
  const script: ScriptedTurn[] = [];
  for (let index = 0; index < turns; index++) {
    const [user, ...rest] = traffic.nextExchange();
    const steps: ScriptedStep[] = [];
    let answer = '';
    for (const message of rest) {
      if (message.role === 'tool') {
        for (const part of message.content) {
          const { value } = part.output as { value: string };
          outputs.set(part.toolCallId, value);
        }
      } else if (message.role === 'assistant') {
        if (typeof message.content === 'string') {
          answer = message.content;
          continue;
        }
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input as Record<string, unknown> }] : []));
        steps.push({ text: text === '' ? undefined : text, calls });
      }
    }
    script.push({ user: typeof user?.content === 'string' ? user.content : '', steps, answer });
  }
  return { turns: script, outputs };
}
