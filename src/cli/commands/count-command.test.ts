import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../_test-cli.js';

const example = readFileSync(new URL('../../../examples/coding-agent-session.json', import.meta.url), 'utf8');

interface CountReport {
  provider: string;
  model: string;
  tokens: number;
  exact: boolean;
  method: string;
  segments: { segment: string; index?: number; role?: string; tokens: number; exact: boolean; method: string }[];
}

describe('sliding-context count', () => {
  it('--json gives the total and a breakdown whose segments add up to it', async () => {
    const { stdout } = await runCli(['count', '-', '--json'], { stdin: example });
    const report = JSON.parse(stdout) as CountReport;
    expect(report).toMatchObject({ provider: 'openai', model: 'gpt-4o', method: 'o200k_base' });
    expect(report.segments[0]).toMatchObject({ segment: 'preamble' });
    expect(report.segments.slice(1).every((segment, index) => segment.segment === 'message' && segment.index === index)).toBe(true);
    expect(report.segments.reduce((sum, segment) => sum + segment.tokens, 0)).toBe(report.tokens);
  });

  it('is exact for plain OpenAI text, and says so', async () => {
    const { stdout } = await runCli(['count', '-', '--json'], { stdin: JSON.stringify([{ role: 'user', content: 'hello world' }]) });
    expect(JSON.parse(stdout)).toMatchObject({ tokens: 3 + 6, exact: true, method: 'o200k_base' });
  });

  it('estimates for Anthropic, and warns on stderr about a model it does not know', async () => {
    const { stdout, stderr } = await runCli(['count', '-', '--provider', 'anthropic', '--model', 'claude-future-9'], { stdin: example });
    expect(stdout).toMatch(/total +[\d,]+ {2}claude-2026 estimate, an estimate/);
    expect(stderr).toMatch(/^warning: Unknown model anthropic\/claude-future-9/);
  });

  it('marks with ~ every segment --json calls inexact, the preamble too', async () => {
    const stdin = JSON.stringify([{ role: 'user', content: 'hello world' }, { role: 'assistant', content: 'hello' }]);
    const { segments } = JSON.parse((await runCli(['count', '-', '--provider', 'anthropic', '--json'], { stdin })).stdout) as CountReport;
    const rows = (await runCli(['count', '-', '--provider', 'anthropic'], { stdin })).stdout.split('\n').filter((line) => /^(preamble|messages\[)/.test(line));
    expect(segments.map((segment) => segment.exact)).toEqual([false, false, false]);
    expect(rows).toHaveLength(3);
    for (const line of rows) expect(line).toMatch(/^\S+(?: \S+)? +[\d,]+ {2}~/);
  });
});
