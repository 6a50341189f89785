/**
 * Where Citus can send one parsed statement: to one shard, to the coordinator alone, to every
 * shard as a schema change, or to several shards. A distributed table is on one shard when it is
 * filtered on `root_id` equality, or joined on `root_id` to a table that is: the equalities of
 * each query level (the `and`ed conjuncts of its WHERE and of its inner joins' ON) are put into
 * classes, and every distributed table must share a class with one value. Outer joins link tables
 * but pin none: their ON filters no row of the outer side.
 */
import { DISTRIBUTION_COLUMN, TABLE_PLACEMENT } from '../store/table-placement.js';

/** Where a statement goes on Citus. */
export type Route = 'single-shard' | 'coordinator' | 'schema-change' | 'multi-shard';

/** A statement's route, and what is wrong with it when something is. */
export interface StatementRoute {
  readonly route: Route;
  /** Why a statement is not routed to one shard, or a schema change Citus refuses; empty when neither. */
  readonly reasons: readonly string[];
  /** False when two distributed tables are joined on something other than `root_id` (Citus cannot push that down). */
  readonly colocated: boolean;
  /**
   * True when all that keeps a statement off one shard is that it filters on no `root_id`: it
   * then runs on every shard, each answering for its own agent trees.
   */
  readonly fansOut: boolean;
}

type AstNode = Record<string, unknown>;

const isNode = (value: unknown): value is AstNode => typeof value === 'object' && value !== null && !Array.isArray(value);
const child = (node: AstNode, key: string): AstNode | undefined => (isNode(node[key]) ? node[key] : undefined);
const children = (node: AstNode, key: string): AstNode[] => (Array.isArray(node[key]) ? node[key].filter(isNode) : []);
const text = (node: AstNode | undefined): string | undefined => (node && isNode(node.String) && typeof node.String.sval === 'string' ? node.String.sval : undefined);

/** A distributed table as one query level names it. */
interface Relation {
  readonly table: string;
  readonly name: string;
  readonly node: number;
}

/** One query level: its distributed tables by the name it gives them, and the level around it. */
interface Scope {
  readonly outer: Scope | undefined;
  readonly relations: Map<string, Relation>;
  readonly ctes: Set<string>;
}

/** A condition of a query level; `pins` is false for an outer join's ON. */
interface Condition {
  readonly expression: AstNode;
  readonly pins: boolean;
}

const SCHEMA_CHANGES = new Set(['CreateStmt', 'IndexStmt', 'AlterTableStmt', 'DropStmt', 'RenameStmt', 'CommentStmt']);
const UTILITIES = new Set(['TransactionStmt', 'VariableSetStmt', 'VariableShowStmt', 'CheckPointStmt']);
const placementOf = (table: string): 'distributed' | 'coordinator' | undefined => (TABLE_PLACEMENT as Record<string, 'distributed' | 'coordinator'>)[table];

/** The analysis of one statement: equality classes (union-find) over `root_id` columns and values. */
class RouteAnalysis {
  readonly #parents: number[] = [];
  readonly #values = new Map<string, number>();
  readonly relations: Relation[] = [];
  readonly joined: Relation[][] = [];
  readonly reasons: string[] = [];
  coordinatorTables = false;

  /** `parameters`: a digest per `$n`, so that equal values are one class; without them each `$n` is its own. */
  constructor(private readonly parameters: readonly string[] | undefined) {}

  node(): number {
    this.#parents.push(this.#parents.length);
    return this.#parents.length - 1;
  }

  find(node: number): number {
    let root = node;
    while (this.#parents[root] !== root) root = this.#parents[root] as number;
    return root;
  }

  union(first: number, second: number): void {
    this.#parents[this.find(first)] = this.find(second);
  }

  /** The class of a parameter or constant: one per distinct value. */
  value(term: AstNode): number | undefined {
    let key: string | undefined;
    if (isNode(term.ParamRef)) {
      const number = Number(term.ParamRef.number);
      key = `$${this.parameters?.[number - 1] ?? String(number)}`;
    } else if (isNode(term.A_Const)) {
      key = `=${JSON.stringify(term.A_Const)}`;
    } else if (isNode(term.TypeCast) && isNode(term.TypeCast.arg)) {
      return this.value(term.TypeCast.arg);
    }
    if (key === undefined) return undefined;
    const known = this.#values.get(key);
    if (known !== undefined) return known;
    const created = this.node();
    this.#values.set(key, created);
    return created;
  }

  /** Whether `node` shares a class with a value: one shard. */
  pinned(node: number): boolean {
    const root = this.find(node);
    return [...this.#values.values()].some((value) => this.find(value) === root);
  }
}

/** The distributed table a column reference names, when the column is `root_id`. */
function resolveRootColumn(reference: AstNode, scope: Scope): Relation | undefined {
  const fields = children(reference, 'fields').map(text);
  if (fields.at(-1) !== DISTRIBUTION_COLUMN) return undefined;
  const qualifier = fields.length >= 2 ? fields.at(-2) : undefined;
  for (let level: Scope | undefined = scope; level; level = level.outer) {
    if (qualifier !== undefined) {
      const named = level.relations.get(qualifier);
      if (named) return named;
    } else if (level.relations.size > 0) {
      // Unqualified: the one distributed table of the nearest level that has any (two would be ambiguous).
      return level.relations.size === 1 ? [...level.relations.values()][0] : undefined;
    }
  }
  return undefined;
}

/** A side of an equality: a distributed table's `root_id`, or a value. */
function termClass(analysis: RouteAnalysis, term: AstNode, scope: Scope): { node: number; relation: boolean } | undefined {
  if (isNode(term.TypeCast) && isNode(term.TypeCast.arg)) return termClass(analysis, term.TypeCast.arg, scope);
  if (isNode(term.ColumnRef)) {
    const relation = resolveRootColumn(term.ColumnRef, scope);
    return relation && { node: relation.node, relation: true };
  }
  const value = analysis.value(term);
  return value === undefined ? undefined : { node: value, relation: false };
}

/** Adds the `root_id` equalities among the `and`ed conjuncts of a condition. */
function addEqualities(analysis: RouteAnalysis, condition: Condition, scope: Scope): void {
  const { expression } = condition;
  if (isNode(expression.BoolExpr)) {
    if (expression.BoolExpr.boolop !== 'AND_EXPR') return;
    for (const argument of children(expression.BoolExpr, 'args')) addEqualities(analysis, { ...condition, expression: argument }, scope);
    return;
  }
  const comparison = child(expression, 'A_Expr');
  if (!comparison || text(children(comparison, 'name')[0]) !== '=') return;
  const left = child(comparison, 'lexpr');
  let right = child(comparison, 'rexpr');
  // `root_id in ($1)`: one value, an equality.
  if (comparison.kind === 'AEXPR_IN' && right && isNode(right.List)) {
    const items = children(right.List, 'items');
    right = items.length === 1 ? items[0] : undefined;
  } else if (comparison.kind !== 'AEXPR_OP') {
    return;
  }
  if (!left || !right) return;
  const [first, second] = [termClass(analysis, left, scope), termClass(analysis, right, scope)];
  if (!first || !second || (!first.relation && !second.relation)) return;
  if (first.relation && second.relation) analysis.union(first.node, second.node);
  else if (condition.pins) analysis.union(first.node, second.node);
}

/** Analyses every subquery found anywhere in `value` as a level inside `scope`. */
function visitSubqueries(analysis: RouteAnalysis, value: unknown, scope: Scope | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) visitSubqueries(analysis, item, scope);
  } else if (isNode(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'SelectStmt' && isNode(inner)) analyzeSelect(analysis, inner, scope);
      else visitSubqueries(analysis, inner, scope);
    }
  }
}

/** Registers a table a query level reads or writes; undefined when it is no distributed table. */
function addTable(analysis: RouteAnalysis, rangeVar: AstNode, scope: Scope): Relation | undefined {
  const table = typeof rangeVar.relname === 'string' ? rangeVar.relname : '';
  const schema = typeof rangeVar.schemaname === 'string' ? rangeVar.schemaname : undefined;
  const alias = child(rangeVar, 'alias');
  const name = alias && typeof alias.aliasname === 'string' ? alias.aliasname : table;
  if (schema === undefined && isCte(scope, table)) return undefined;
  if (schema === 'pg_catalog' || schema === 'information_schema' || table.startsWith('pg_')) {
    analysis.coordinatorTables = true;
    return undefined;
  }
  const placement = placementOf(table);
  if (placement === undefined) {
    analysis.reasons.push(`${table} is in no placement (src/store/table-placement.ts): distributed or coordinator?`);
    return undefined;
  }
  if (placement === 'coordinator') {
    analysis.coordinatorTables = true;
    return undefined;
  }
  const relation = { table, name, node: analysis.node() };
  scope.relations.set(name, relation);
  analysis.relations.push(relation);
  return relation;
}

function isCte(scope: Scope | undefined, name: string): boolean {
  for (let level = scope; level; level = level.outer) if (level.ctes.has(name)) return true;
  return false;
}

/** Registers a FROM item of a level, collecting its join conditions. */
function addFromItem(analysis: RouteAnalysis, item: AstNode, scope: Scope, conditions: Condition[]): void {
  if (isNode(item.RangeVar)) {
    addTable(analysis, item.RangeVar, scope);
  } else if (isNode(item.JoinExpr)) {
    const join = item.JoinExpr;
    for (const side of [child(join, 'larg'), child(join, 'rarg')]) if (side) addFromItem(analysis, side, scope, conditions);
    const quals = child(join, 'quals');
    if (quals) conditions.push({ expression: quals, pins: join.jointype === 'JOIN_INNER' });
  } else if (isNode(item.RangeSubselect)) {
    visitSubqueries(analysis, item.RangeSubselect.subquery, scope);
  } else {
    visitSubqueries(analysis, item, scope);
  }
}

/** Analyses a query level with its FROM items, conditions and subqueries; returns its scope. */
function analyzeLevel(analysis: RouteAnalysis, level: { from: AstNode[]; conditions: Condition[]; rest: unknown[]; withClause?: AstNode | undefined }, outer: Scope | undefined): Scope {
  const ctes = new Set<string>();
  const scope: Scope = { outer, relations: new Map(), ctes };
  for (const cte of level.withClause ? children(level.withClause, 'ctes') : []) {
    const definition = child(cte, 'CommonTableExpr');
    if (!definition) continue;
    if (typeof definition.ctename === 'string') ctes.add(definition.ctename);
    const query = isNode(definition.ctequery) ? definition.ctequery : {};
    // Citus routes a CTE that updates or deletes with the statement (citusdata/citus#3654); one that inserts it plans apart.
    if (isNode(query.UpdateStmt)) analyzeModification(analysis, query.UpdateStmt, 'fromClause');
    else if (isNode(query.DeleteStmt)) analyzeModification(analysis, query.DeleteStmt, 'usingClause');
    else if (isNode(query.InsertStmt)) analysis.reasons.push('inserts in a CTE, which Citus plans as a step of its own (citusdata/citus#3948)');
    else visitSubqueries(analysis, definition.ctequery, outer);
  }
  const conditions = [...level.conditions];
  for (const item of level.from) addFromItem(analysis, item, scope, conditions);
  for (const condition of conditions) addEqualities(analysis, condition, scope);
  for (const condition of conditions) visitSubqueries(analysis, condition.expression, scope);
  visitSubqueries(analysis, level.rest, scope);
  analysis.joined.push([...scope.relations.values()]);
  return scope;
}

function analyzeSelect(analysis: RouteAnalysis, select: AstNode, outer: Scope | undefined): Scope {
  if (typeof select.op === 'string' && select.op !== 'SETOP_NONE') {
    for (const side of [child(select, 'larg'), child(select, 'rarg')]) if (side) analyzeSelect(analysis, side, outer);
    return { outer, relations: new Map(), ctes: new Set() };
  }
  const where = child(select, 'whereClause');
  return analyzeLevel(analysis, {
    from: children(select, 'fromClause'),
    conditions: where ? [{ expression: where, pins: true }] : [],
    rest: [select.targetList, select.valuesLists, select.havingClause, select.groupClause, select.sortClause, select.distinctClause],
    withClause: child(select, 'withClause'),
  }, outer);
}

/** INSERT: the target's `root_id` must be given, by a value in each row or by a pinned source's `root_id`. */
function analyzeInsert(analysis: RouteAnalysis, insert: AstNode): void {
  const scope: Scope = { outer: undefined, relations: new Map(), ctes: new Set() };
  const target = child(insert, 'relation') && addTable(analysis, child(insert, 'relation') as AstNode, scope);
  const source = child(child(insert, 'selectStmt') ?? {}, 'SelectStmt');
  if (!source) return;
  const sourceScope = analyzeSelect(analysis, source, undefined);
  if (!target) return;
  const column = children(insert, 'cols').findIndex((col) => isNode(col.ResTarget) && col.ResTarget.name === DISTRIBUTION_COLUMN);
  if (column === -1) {
    analysis.reasons.push(`inserts into ${target.table} without ${DISTRIBUTION_COLUMN}`);
    return;
  }
  const rows = children(source, 'valuesLists');
  const given = rows.length > 0
    ? rows.map((row) => children(child(row, 'List') ?? {}, 'items')[column])
    : [child(child(children(source, 'targetList')[column] ?? {}, 'ResTarget') ?? {}, 'val')];
  // Each row goes where its own root_id sends it: one shard when they are all one value.
  const terms = given.map((value) => value && termClass(analysis, value, sourceScope));
  if (terms.some((term) => term === undefined)) {
    analysis.reasons.push(`inserts into ${target.table} a ${DISTRIBUTION_COLUMN} that is neither a value nor a source's ${DISTRIBUTION_COLUMN}`);
  } else {
    const values = new Set(terms.map((term) => term?.node)).size;
    if (values > 1) analysis.reasons.push(`inserts rows with ${values} different ${DISTRIBUTION_COLUMN} values`);
    if (terms[0]) analysis.union(target.node, terms[0].node);
  }
  analysis.joined.push([target, ...sourceScope.relations.values()]);
}

/** UPDATE and DELETE: the target and the FROM or USING tables form one level. */
function analyzeModification(analysis: RouteAnalysis, statement: AstNode, fromKey: 'fromClause' | 'usingClause'): void {
  const relation = child(statement, 'relation');
  const where = child(statement, 'whereClause');
  const scope = analyzeLevel(analysis, {
    from: [...(relation ? [{ RangeVar: relation }] : []), ...children(statement, fromKey)],
    conditions: where ? [{ expression: where, pins: true }] : [],
    rest: [statement.targetList, statement.returningClause],
    withClause: child(statement, 'withClause'),
  }, undefined);
  const target = relation && scope.relations.get(child(relation, 'alias')?.aliasname as string | undefined ?? (relation.relname as string));
  const setsRoot = children(statement, 'targetList').some((item) => isNode(item.ResTarget) && item.ResTarget.name === DISTRIBUTION_COLUMN);
  if (target && setsRoot) analysis.reasons.push(`updates ${DISTRIBUTION_COLUMN} of ${target.table}, the distribution column (Citus refuses that)`);
}

/** A schema change: Citus applies it to every shard; a unique key on a distributed table must hold `root_id`. */
function schemaChangeRoute(kind: string, statement: AstNode): StatementRoute {
  const relation = child(statement, 'relation');
  const table = relation && typeof relation.relname === 'string' ? relation.relname : undefined;
  if (table !== undefined && placementOf(table) === undefined) {
    return { route: 'schema-change', reasons: [`${table} is in no placement (src/store/table-placement.ts): distributed or coordinator?`], colocated: true, fansOut: false };
  }
  if (table === undefined || placementOf(table) !== 'distributed') return { route: 'coordinator', reasons: [], colocated: true, fansOut: false };
  const keys: string[][] = [];
  const constraintKeys = (constraint: AstNode, column?: string) => {
    if (constraint.contype === 'CONSTR_PRIMARY' || constraint.contype === 'CONSTR_UNIQUE') keys.push(column === undefined ? children(constraint, 'keys').map((key) => text(key) ?? '') : [column]);
  };
  if (kind === 'IndexStmt' && statement.unique === true) keys.push(children(statement, 'indexParams').map((param) => child(param, 'IndexElem')?.name).map((name) => (typeof name === 'string' ? name : '')));
  for (const element of [...children(statement, 'tableElts'), ...children(statement, 'cmds').map((cmd) => child(child(cmd, 'AlterTableCmd') ?? {}, 'def') ?? {})]) {
    if (isNode(element.Constraint)) constraintKeys(element.Constraint);
    if (isNode(element.ColumnDef)) for (const constraint of children(element.ColumnDef, 'constraints')) if (isNode(constraint.Constraint)) constraintKeys(constraint.Constraint, String(element.ColumnDef.colname));
  }
  const reasons = keys.filter((columns) => !columns.includes(DISTRIBUTION_COLUMN)).map((columns) => `a unique key (${columns.join(', ')}) on ${table} without ${DISTRIBUTION_COLUMN} (Citus refuses it)`);
  return { route: 'schema-change', reasons, colocated: true, fansOut: false };
}

/** How many times a statement names a distributed table, wherever it does. */
function distributedMentions(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + distributedMentions(item), 0);
  if (!isNode(value)) return 0;
  let count = 0;
  for (const [key, inner] of Object.entries(value)) {
    const named = (key === 'RangeVar' || key === 'relation') && isNode(inner) && typeof inner.relname === 'string' && placementOf(inner.relname) === 'distributed';
    count += named ? 1 : distributedMentions(inner);
  }
  return count;
}

/**
 * The route of one parsed statement (a `stmt` of libpg-query's parse result). `parameters`: the
 * digests of its parameters, as the SQL log writes them; without them, two different `$n` are
 * taken as possibly different values.
 */
export function statementRoute(stmt: AstNode, parameters?: readonly string[]): StatementRoute {
  const [kind, body] = Object.entries(stmt)[0] ?? ['', {}];
  if (!isNode(body) || UTILITIES.has(kind)) return { route: 'coordinator', reasons: [], colocated: true, fansOut: false };
  if (SCHEMA_CHANGES.has(kind)) return schemaChangeRoute(kind, body);
  const analysis = new RouteAnalysis(parameters);
  if (kind === 'SelectStmt') analyzeSelect(analysis, body, undefined);
  else if (kind === 'InsertStmt') analyzeInsert(analysis, body);
  else if (kind === 'UpdateStmt') analyzeModification(analysis, body, 'fromClause');
  else if (kind === 'DeleteStmt') analyzeModification(analysis, body, 'usingClause');
  else visitSubqueries(analysis, body, undefined);
  const reasons = [...analysis.reasons];
  // A part of the statement the analysis does not walk must not hide a table from it.
  const missed = distributedMentions(body) - analysis.relations.length;
  if (missed > 0) reasons.push(`names ${missed} distributed table(s) where this check does not look`);
  const unfiltered: string[] = [];
  if (!['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(kind) && analysis.relations.length > 0) reasons.push(`a ${kind} on a distributed table`);
  if (analysis.coordinatorTables && analysis.relations.length > 0) reasons.push('reads a coordinator table together with a distributed one');
  for (const relation of analysis.relations) {
    if (!analysis.pinned(relation.node)) unfiltered.push(`${relation.table}${relation.name === relation.table ? '' : ` (as ${relation.name})`} is not filtered on ${DISTRIBUTION_COLUMN} equality`);
  }
  let colocated = true;
  for (const level of analysis.joined) {
    const first = level[0];
    const apart = first && level.find((relation) => analysis.find(relation.node) !== analysis.find(first.node));
    if (first && apart) {
      colocated = false;
      reasons.push(`${first.name} and ${apart.name} are not joined on ${DISTRIBUTION_COLUMN}`);
    }
  }
  if (analysis.relations.length === 0) return { route: 'coordinator', reasons, colocated, fansOut: false };
  const fansOut = reasons.length === 0 && unfiltered.length > 0;
  reasons.push(...unfiltered);
  const classes = new Set(analysis.relations.map((relation) => analysis.find(relation.node)));
  const pinnedAll = analysis.relations.every((relation) => analysis.pinned(relation.node));
  if (pinnedAll && classes.size > 1 && colocated) reasons.push(`filters on ${classes.size} different ${DISTRIBUTION_COLUMN} values`);
  return { route: reasons.length === 0 ? 'single-shard' : 'multi-shard', reasons, colocated, fansOut };
}
