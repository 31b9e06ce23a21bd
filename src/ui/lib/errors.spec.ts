import { describe, expect, it } from 'vitest';
import { EngineError } from '../../engine/types';
import { StoreError } from '../../store/errors';
import { toUserMessage } from './errors';

describe('toUserMessage', () => {
  it('maps engine codes to actionable messages', () => {
    expect(toUserMessage(new EngineError('gated', 'HTTP 401'))).toMatchObject({ title: expect.stringMatching(/needs a Hugging Face token with access/), action: 'add-token', detail: 'HTTP 401' });
    expect(toUserMessage(new EngineError('device-lost', 'lost')).action).toBe('reload-engine');
    expect(toUserMessage(new EngineError('network', 'fetch failed')).title).toMatch(/offline/);
  });
  it('recognizes an engine error that crossed the worker as a plain Error with name and code', () => {
    const e = Object.assign(new Error('x'), { name: 'EngineError', code: 'out-of-memory' });
    expect(toUserMessage(e).title).toMatch(/Out of memory/);
  });
  it('maps store errors and quota errors', () => {
    const quota = new StoreError('quota-exceeded', 'full');
    expect(toUserMessage(quota).action).toBe('free-storage');
    const dom = Object.assign(new Error('q'), { name: 'QuotaExceededError' });
    expect(toUserMessage(dom).action).toBe('free-storage');
  });
  it('keeps the message of anything else', () => {
    expect(toUserMessage(new Error('boom'))).toEqual({ title: 'Something went wrong.', detail: 'boom', action: 'none' });
    expect(toUserMessage('text').detail).toBe('text');
  });
});
