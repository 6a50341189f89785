import { useEffect, useState } from 'preact/hooks';
import type { Opened } from './timeline.js';
import { agentPath, getJson, type StoredMessageJson, type SummaryJson } from './web-data.js';

/** Messages read for one exchange when the next stored row is not known (the agent's last one). */
const OPEN_ENDED_MESSAGES = 200;

/** A message's content as text: strings as they are, parts one by one, the rest as JSON. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content, null, 2);
  return content
    .map((part: unknown) => {
      if (typeof part === 'object' && part !== null && 'type' in part) {
        if (part.type === 'text' && 'text' in part && typeof part.text === 'string') return part.text;
        if (part.type === 'tool-call' && 'toolName' in part) return `→ ${String(part.toolName)}(${JSON.stringify('input' in part ? part.input : {}, null, 2)})`;
        if (part.type === 'tool-result' && 'toolName' in part) return `← ${String(part.toolName)}: ${JSON.stringify('output' in part ? part.output : null, null, 2)}`;
      }
      return JSON.stringify(part, null, 2);
    })
    .join('\n');
}

/** The messages of the row opened, whole, or the summary's text. */
export function MessagePanel(props: { readonly opened: Opened; readonly summary: SummaryJson | null; readonly onClose: () => void }) {
  const [messages, setMessages] = useState<readonly StoredMessageJson[] | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const { opened } = props;
  useEffect(() => {
    setMessages(undefined);
    setFailure(undefined);
    if (opened.kind !== 'messages') return;
    const through = opened.throughSeq ?? opened.fromSeq + OPEN_ENDED_MESSAGES - 1;
    getJson<{ messages: StoredMessageJson[] }>(`${agentPath(opened.agentId)}/messages/${opened.fromSeq}?through=${Math.max(opened.fromSeq, through)}`)
      .then((answer) => {
        setMessages(answer.messages);
      })
      .catch((error: unknown) => {
        setFailure(String(error));
      });
  }, [opened]);
  return (
    <aside class="panel" data-testid="message-panel">
      <header>
        <strong>{opened.kind === 'summary' ? 'Summary in force' : opened.title}</strong>
        <button type="button" onClick={props.onClose}>close</button>
      </header>
      {opened.kind === 'summary' && props.summary && <pre class="message-text">{props.summary.text}</pre>}
      {failure && <p class="failure">{failure}</p>}
      {messages?.map((stored) => (
        <section key={`${stored.agentId}:${stored.seq}`} class={`message role-${stored.message.role}`} data-testid="message">
          <h4>
            {stored.message.role === 'event' ? `event: ${stored.message.kind ?? ''} ${stored.message.label ?? ''}` : stored.message.role}
            {' '}
            · seq
            {' '}
            {stored.seq}
            {stored.count ? ` · ${stored.count.tokens} tokens` : ''}
          </h4>
          <pre class="message-text">{stored.message.role === 'event' ? '' : contentText(stored.message.content)}</pre>
        </section>
      ))}
    </aside>
  );
}
