import { describe, expect, it } from 'vitest';
import { commitLabel, modelLabel } from './model-label';

describe('modelLabel', () => {
  it('writes the revision once', () => {
    expect(modelLabel({ name: 'reference/tiny-qwen2@main', revision: 'main' })).toBe('reference/tiny-qwen2@main');
    expect(modelLabel({ name: 'Qwen/Qwen2.5-0.5B', revision: 'abc123' })).toBe('Qwen/Qwen2.5-0.5B@abc123');
    expect(modelLabel({ name: 'reference/tiny-qwen2@main', revision: 'dev' })).toBe('reference/tiny-qwen2@main@dev');
  });

  it('names the Hub commit the revision resolved to, so two loads of one revision tell apart', () => {
    const commit = '0123456789abcdef0123456789abcdef01234567';
    expect(modelLabel({ name: 'reference/tiny-qwen2@main', revision: 'main', commit })).toBe('reference/tiny-qwen2@main (commit 0123456789ab)');
    expect(modelLabel({ name: 'reachlab/micro-arith', commit: 'build-0.1.0' })).toBe('reachlab/micro-arith');
    expect(commitLabel(commit)).toBe('0123456789ab');
    expect(commitLabel('build-0.1.0')).toBe('build-0.1.0');
  });

  it('leaves names without a revision alone', () => {
    expect(modelLabel({ name: 'my-folder' })).toBe('my-folder');
  });
});
