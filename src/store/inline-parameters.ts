import type { CompiledQuery } from 'kysely';

/**
 * A value as a SQL literal of no stated type, as PostgreSQL takes a parameter sent as text with
 * no type (as `pg` sends it): the column or operator it meets gives its type. Strings
 * are escaped in the `E'…'` form, backslashes and quotes doubled, which reads the same whatever
 * `standard_conforming_strings` is. Undefined for a value that is not text, a number, a boolean,
 * a date or null, and for text holding a NUL (PostgreSQL refuses it in text either way).
 */
function sqlLiteral(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') text = String(value);
  else if (value instanceof Date && !Number.isNaN(value.getTime())) text = value.toISOString();
  else return undefined;
  // The simple protocol's query is a C string: a NUL would end it inside the literal.
  if (text.includes('\u0000')) return undefined;
  return `E'${text.replaceAll('\\', '\\\\').replaceAll('\'', '\'\'')}'`;
}

/**
 * A compiled statement with its parameters written into it as literals (see {@link sqlLiteral}),
 * for PostgreSQL's simple protocol, which takes several statements in one message but no
 * parameters. Undefined when a parameter cannot be written as a literal. The store's statements
 * are compiled by Kysely, whose SQL holds every value as a parameter: `$n` occurs nowhere else.
 */
export function inlineParameters(query: CompiledQuery): string | undefined {
  const literals: string[] = [];
  for (const parameter of query.parameters) {
    const literal = sqlLiteral(parameter);
    if (literal === undefined) return undefined;
    literals.push(literal);
  }
  return query.sql.replace(/\$(\d+)/g, (placeholder, index: string) => literals[Number(index) - 1] ?? placeholder);
}
