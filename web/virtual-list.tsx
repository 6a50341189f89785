import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/** The height of every row, in pixels: a fixed height lets the list draw only what is in view. */
export const ROW_HEIGHT = 26;

/** Rows drawn beyond each edge of the view, so that scrolling shows no gap. */
const OVERSCAN = 12;

/**
 * A list that draws only the rows in view (and a few around): a history of 100,000 exchanges
 * costs what a screenful costs, and only the rows drawn need be known (`renderRow` is asked for
 * those; `onRange` is told which they are, to read those it has not). `scrollToRow` brings a row
 * into view when it changes.
 */
export function VirtualList(props: {
  readonly count: number;
  readonly renderRow: (position: number) => ComponentChildren;
  readonly onRange?: ((first: number, last: number) => void) | undefined;
  readonly scrollToRow?: number | undefined;
}) {
  const container = useRef<HTMLDivElement>(null);
  const [height, setHeight] = useState(600);
  // Where the list first scrolls to, already for its first render: the rows read first are those.
  const [scrollTop, setScrollTop] = useState(() => (props.scrollToRow === undefined ? 0 : Math.max(0, props.scrollToRow * ROW_HEIGHT - height / 3)));
  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const observer = new ResizeObserver(() => {
      setHeight(element.clientHeight);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
  }, []);
  useEffect(() => {
    const element = container.current;
    if (!element || props.scrollToRow === undefined) return;
    element.scrollTop = Math.max(0, props.scrollToRow * ROW_HEIGHT - element.clientHeight / 3);
    setScrollTop(element.scrollTop);
  }, [props.scrollToRow]);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(props.count, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const { onRange } = props;
  useEffect(() => {
    onRange?.(first, last - 1);
  }, [first, last, onRange]);
  const drawn = [];
  for (let position = first; position < last; position++) {
    drawn.push(
      <div key={position} class="virtual-row" style={{ top: `${position * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }}>
        {props.renderRow(position)}
      </div>,
    );
  }
  return (
    <div
      class="virtual-list"
      ref={container}
      onScroll={(event) => {
        setScrollTop(event.currentTarget.scrollTop);
      }}
    >
      <div class="virtual-space" style={{ height: `${props.count * ROW_HEIGHT}px` }}>{drawn}</div>
    </div>
  );
}
