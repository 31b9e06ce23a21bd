// Issue 43: what the CLIs print on stderr escapes control characters in the input it quotes, so an
// argument, a path or a plan cannot colour the terminal, move its cursor or forge a line.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const HOSTILE = '\u001b[2J\u001b[31mx\r\nstudy: all runs finished';

function stderrOf(script: string, args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

/** No control character but the line ends the CLI writes itself. */
const clean = (text: string) => !/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text);

describe('CLI messages quote input with its control characters escaped', () => {
  it('audit: an unknown option', () => {
    const r = stderrOf('scripts/audit-cli.ts', [`--${HOSTILE}`]);
    expect(r.status).toBe(2);
    expect(clean(r.stderr)).toBe(true);
    expect(r.stderr).toContain('\\u001b[2J\\u001b[31mx\\r\\nstudy: all runs finished');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('study: a plan path that cannot be read', () => {
    const r = stderrOf('scripts/study-cli.ts', ['--plan', HOSTILE, '--records', 'test-results']);
    expect(r.status).toBe(2);
    expect(clean(r.stderr)).toBe(true);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^study: cannot read the plan \\u001b\[2J/);
  });

  it('engine: an unknown option, then the usage', () => {
    const r = stderrOf('scripts/engine-cli.ts', ['logits', HOSTILE, 'x']);
    expect(r.status).toBe(1);
    expect(clean(r.stderr)).toBe(true);
    const [first, ...usage] = r.stderr.trimEnd().split('\n');
    expect(first).toBe('engine: unknown option \\u001b[2J\\u001b[31mx\\r\\nstudy: all runs finished for logits');
    expect(usage[0]).toMatch(/^usage: engine logits/);
  });
});
