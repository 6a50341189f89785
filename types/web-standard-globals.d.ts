// The few web-standard globals the core uses: Node, browsers, Deno and workers all have them.
// tsconfig.core.json checks the core with these and without Node's types, so that a Node global
// (process, Buffer) or built-in module used in the core fails the check.

declare function atob(data: string): string;

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
}
