/** What a command may touch of the outside world; only `main.ts` builds the real one. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** True when stderr is a terminal: progress bars are drawn only then. */
  readonly stderrIsTerminal?: boolean | undefined;
  /** True when stdout is a terminal: what a clear or rewind took out is dimmed only then. */
  readonly stdoutIsTerminal?: boolean | undefined;
  /** Asks a yes/no question on the terminal (default no); absent where there is none to ask on. */
  readonly confirm?: ((question: string) => Promise<boolean>) | undefined;
  /** Writes a file whole (for `export --out`). */
  writeText?(path: string, text: string): Promise<void>;
  /** Environment variables (only those the CLI reads matter). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A file's bytes, decoded where they are read (see `decodeInputText`), or its text. */
  readText(path: string): Promise<string | Uint8Array>;
  /** The lines of a file (`-` for stdin), read as they come, without their line ends (see `readUtf8Lines`). */
  readLines(path: string): AsyncIterable<string>;
  /** A file's size in bytes. */
  fileSize(path: string): Promise<number>;
  /** Stdin's bytes, or its text, as `readText` gives a file's. */
  readStdin(): Promise<string | Uint8Array>;
  /** The interactive terminal, for `chat`: absent where there is none. */
  readonly terminal?: {
    /** `isTTY` when it is a terminal: off one, `chat` makes a new agent only once a line comes. */
    readonly input: NodeJS.ReadableStream & { readonly isTTY?: boolean };
    readonly output: NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };
  } | undefined;
  /** The working directory: what the chat's tools may read. */
  readonly cwd?: string | undefined;
  /**
   * Runs `cleanup` if the process is interrupted (SIGINT, SIGTERM), which then exits 130 or 143;
   * or 0 when `cleanup` answers `finished` (the work was done before the interrupt could stop it).
   * Returns how to cancel that.
   */
  onInterrupt(cleanup: () => Promise<unknown>): () => void;
}
