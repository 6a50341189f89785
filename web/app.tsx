import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { AgentsTree } from './agents-tree.js';
import { MessagePanel } from './message-panel.js';
import { RequestChart } from './request-chart.js';
import { type Opened, Timeline } from './timeline.js';
import { readFirstRows, TimelineStore } from './timeline-store.js';
import { type AgentJson, agentPath, getJson, type TimelineJson as HistoryJson, type RequestsJson } from './web-data.js';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

const number = new Intl.NumberFormat('en-US');

/** Waits this long after a write before reading again, so that a burst of writes costs one read, in milliseconds. */
const SETTLE_MS = 100;

/** What the chosen agent's header says under its name. */
function headerLine(history: HistoryJson): string {
  const exchanges = `${number.format(history.exchangeCount)} exchanges, ${number.format(history.evictedExchanges)} out of the window`;
  return `${history.provider}/${history.model} · budget ${number.format(history.budgetTokens)} · window ${number.format(history.totalTokens)} tokens · ${exchanges}`;
}

/** The page: the agents' fork tree, and the chosen agent's chart, timeline and opened messages. Read-only. */
function App() {
  const [agents, setAgents] = useState<readonly AgentJson[]>([]);
  const [selected, setSelected] = useState<string | undefined>(() => new URLSearchParams(location.search).get('agent') ?? undefined);
  const [timeline, setTimeline] = useState<TimelineStore | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const history: HistoryJson | undefined = timeline?.head;
  const [requests, setRequests] = useState<RequestsJson | undefined>(undefined);
  const [opened, setOpened] = useState<Opened | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [live, setLive] = useState(false);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;

  const load = useCallback(async () => {
    try {
      // The agents and, when one is chosen already, its history are read at once.
      const listed = getJson<AgentJson[]>('/api/agents').then((list) => {
        setAgents(list);
        return list;
      });
      const agentId = selectedRef.current ?? (await listed)[0]?.agentId;
      if (agentId === undefined) return;
      if (selectedRef.current === undefined) setSelected(agentId);
      // Each part is drawn as it arrives: the timeline need not wait for the chart.
      const current = () => selectedRef.current === undefined || selectedRef.current === agentId;
      await Promise.all([
        // The rows around the cutoff first; the others as the list scrolls to them.
        readFirstRows(agentId).then((head) => {
          if (!current()) return;
          const store = new TimelineStore(agentId, head, () => {
            setVersion((value) => value + 1);
          });
          setTimeline(store);
        }),
        getJson<RequestsJson>(`${agentPath(agentId)}/requests`).then((series) => {
          if (current()) setRequests(series);
        }),
        listed,
      ]);
      setFailure(undefined);
    } catch (error) {
      setFailure(String(error));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [selected, load]);

  useEffect(() => {
    // Live: the server sends an event after each write; the page reads again once they settle.
    const events = new EventSource('/events');
    let timer: number | undefined;
    events.onopen = () => {
      setLive(true);
    };
    events.onerror = () => {
      setLive(false);
    };
    events.addEventListener('write', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void load(), SETTLE_MS);
    });
    return () => {
      events.close();
    };
  }, [load]);

  const current = agents.find((agent) => agent.agentId === selected);
  return (
    <div class="layout">
      <nav class="sidebar">
        <h1>sliding-context</h1>
        <p class={`live ${live ? 'on' : 'off'}`} data-testid="live">{live ? '● live' : '○ not connected'}</p>
        <AgentsTree
          agents={agents}
          selected={selected}
          onSelect={(agentId) => {
            if (agentId === selectedRef.current) return;
            setOpened(undefined);
            setTimeline(undefined);
            setRequests(undefined);
            setSelected(agentId);
          }}
        />
      </nav>
      <main class="main">
        {failure && <p class="failure">{failure}</p>}
        {history && (
          <header class="agent-header" data-testid="agent-header">
            <h2>{current?.name ?? current?.title ?? history.agentId}</h2>
            <span>{headerLine(history)}</span>
          </header>
        )}
        {requests && <RequestChart requests={requests} />}
        {timeline && <Timeline store={timeline} version={version} onOpen={setOpened} />}
      </main>
      {opened && history && (
        <MessagePanel
          opened={opened}
          summary={history.summary}
          onClose={() => {
            setOpened(undefined);
          }}
        />
      )}
    </div>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
