import { describe, expect, it } from 'vitest';
import { modelLabel } from './model-label';

describe('modelLabel', () => {
  it('writes the revision once', () => {
    expect(modelLabel({ name: 'reference/tiny-qwen2@main', revision: 'main' })).toBe('reference/tiny-qwen2@main');
    expect(modelLabel({ name: 'Qwen/Qwen2.5-0.5B', revision: 'abc123' })).toBe('Qwen/Qwen2.5-0.5B@abc123');
    expect(modelLabel({ name: 'reference/tiny-qwen2@main', revision: 'dev' })).toBe('reference/tiny-qwen2@main@dev');
  });

  it('leaves names without a revision alone', () => {
    expect(modelLabel({ name: 'my-folder' })).toBe('my-folder');
  });
});
