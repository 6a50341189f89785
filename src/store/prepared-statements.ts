/**
 * The statements one database session keeps prepared (PostgreSQL's `PREPARE`), by their SQL, so
 * that a write made on every turn is run by `EXECUTE` without being parsed and planned again. An
 * append of one message, its transactions 300 ms apart, took 1.3–1.5 ms instead of 1.6–2.0 on
 * PGlite, and 2.1–2.2 ms instead of 2.4–2.5 on a local server.
 */
import { CompiledQuery } from 'kysely';
import { inlineParameters } from './inline-parameters.js';

/** Most statements one session keeps prepared; past them a statement is sent as it is, its values written in. */
export const PREPARED_PER_SESSION = 64;

/** Sets of prepared statements made in this process: each names its statements apart from another's on the same session. */
let sets = 0;

export class PreparedStatements {
  /** Each statement's name, or null for one that could not be prepared (it is not tried again). */
  readonly #names = new Map<string, string | null>();
  readonly #prefix = `sliding_context_${String(++sets)}_`;

  /**
   * The text that runs `query` by the simple protocol, its values written in as literals (see
   * `inlineParameters`): the `EXECUTE` of its prepared statement, prepared first with `run` when it
   * is new, else the statement itself. Undefined when a value cannot be written as a literal.
   * Call it outside a transaction: a statement prepared in one that rolls back would be lost.
   */
  async textOf(query: CompiledQuery, run: (text: string) => Promise<unknown>): Promise<string | undefined> {
    const name = await this.#nameOf(query.sql, run);
    if (name === null) return inlineParameters(query);
    const placeholders = query.parameters.map((_, index) => `$${String(index + 1)}`).join(', ');
    return inlineParameters(CompiledQuery.raw(placeholders === '' ? `execute ${name}` : `execute ${name}(${placeholders})`, [...query.parameters]));
  }

  async #nameOf(text: string, run: (text: string) => Promise<unknown>): Promise<string | null> {
    const known = this.#names.get(text);
    if (known !== undefined) return known;
    if (this.#names.size >= PREPARED_PER_SESSION) return null;
    const name = `${this.#prefix}${String(this.#names.size + 1)}`;
    try {
      // Each parameter's type is the one the statement gives it (a column, an operator), as for a parameter sent with no type.
      await run(`prepare ${name} as ${text}`);
      this.#names.set(text, name);
      return name;
    } catch {
      this.#names.set(text, null);
      return null;
    }
  }
}
