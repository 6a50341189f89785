import type { z } from 'zod';
import { isRecord } from './is-record.js';

type Issue = z.core.$ZodIssue;
type PathSegment = PropertyKey;

/** Renders a path as `messages[7].content[1].toolCallId`. */
export function formatPath(root: string, path: readonly PathSegment[]): string {
  let text = root;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment))
      text += `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${value.toString()}`;
  }
  return typeof value;
}

function listOptions(options: readonly unknown[]): string {
  return options.map((option) => JSON.stringify(option)).join(' | ');
}

/** The deepest issue a union branch reported: the branch that got furthest is the one meant. */
function pickUnionBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  let best: readonly Issue[] | undefined;
  let bestDepth = 0;
  for (const branch of branches) {
    let depth = 0;
    for (const issue of branch) depth = Math.max(depth, issue.path.length);
    const unrecognized = branch.some((issue) => issue.code === 'unrecognized_keys');
    const score = depth + (unrecognized ? 0.5 : 0);
    if (score > bestDepth) {
      best = branch;
      bestDepth = score;
    }
  }
  return best;
}

/** One readable line for a zod issue: `<path>: <what was expected>`. */
export function formatIssue(root: string, issue: Issue, parentPath: readonly PathSegment[] = []) {
  const path = [...parentPath, ...issue.path];
  const input = 'input' in issue ? issue.input : undefined;
  switch (issue.code) {
    case 'invalid_type':
      return `${formatPath(root, path)}: expected ${issue.expected}, received ${describeValue(input)}`;
    case 'unrecognized_keys':
      return issue.keys
        .map((key) => `${formatPath(root, [...path, key])}: unknown field`)
        .join('; ');
    case 'invalid_value':
      return `${formatPath(root, path)}: expected ${listOptions(issue.values)}, received ${describeValue(input)}`;
    case 'invalid_union': {
      if ('discriminator' in issue && issue.errors.length === 0) {
        const options = 'options' in issue && Array.isArray(issue.options) ? issue.options : [];
        const key = String(issue.discriminator);
        const value = isRecord(input) ? input[key] : input;
        return `${formatPath(root, path)}: expected ${listOptions(options)}, received ${describeValue(value)}`;
      }
      const branch = pickUnionBranch(issue.errors);
      const first = branch?.[0];
      if (first) return formatIssue(root, first, path);
      const expected = issue.errors
        .flat()
        .map((branchIssue) => ('expected' in branchIssue ? String(branchIssue.expected) : ''))
        .filter((text) => text !== '');
      const received = describeValue(input);
      return expected.length > 0
        ? `${formatPath(root, path)}: expected ${[...new Set(expected)].join(' or ')}, received ${received}`
        : `${formatPath(root, path)}: ${issue.message}`;
    }
    default:
      return `${formatPath(root, path)}: ${issue.message}`;
  }
}
