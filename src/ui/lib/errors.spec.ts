import { describe, expect, it } from 'vitest';
import { AuditError } from '../../audit/errors';
import { EngineError } from '../../engine/types';
import { StoreError } from '../../store/errors';
import { toUserMessage } from './errors';

describe('toUserMessage', () => {
  it('puts the cause in the headline, after what was being done', () => {
    const m = toUserMessage(new EngineError('not-found', 'config.json is not among the picked files (tiny)'), 'load-model');
    expect(m.title).toBe('The model did not load: config.json is not among the picked files (tiny).');
    expect(m.hint).not.toMatch(/repo id/);
    expect(m.action).toBe('none'); // loading: nothing to choose
    expect(toUserMessage(new EngineError('not-found', 'config.json is not among the picked files (tiny)'), 'load-folder')).toMatchObject({
      title: 'The model did not load: config.json is not among the picked files (tiny).',
      action: 'choose-folder',
    });
    expect(toUserMessage(new EngineError('network', 'x'), 'load-folder').action).toBe('retry');
    expect(toUserMessage(new AuditError('bad-task', 'JSONL line 3 is not valid JSON: Unexpected token'), 'read-task-file')).toEqual({
      title: 'This task file cannot be used: JSONL line 3 is not valid JSON: Unexpected token.',
      hint: 'Fix the file, or choose another one.',
      action: 'choose-file',
    });
  });

  it('offers the button that fixes it: token, retry, engine reload, another file, the library', () => {
    expect(toUserMessage(new EngineError('gated', 'x: gated or private (HTTP 401)'), 'load-model').action).toBe('add-token');
    expect(toUserMessage(new EngineError('network', 'cannot reach huggingface.co'), 'load-model').action).toBe('retry');
    expect(toUserMessage(new EngineError('device-lost', 'lost'), 'run').action).toBe('reload-engine');
    expect(toUserMessage(new AuditError('offline', 'the Hub dataset server cannot be reached'), 'start-run')).toMatchObject({
      title: 'The audit did not start: the Hub dataset server cannot be reached.',
      action: 'retry',
    });
    expect(toUserMessage(new StoreError('invalid-import', '"x.json": not a run file'), 'import').action).toBe('choose-file');
    expect(toUserMessage(new StoreError('locked', 'running in another tab'), 'start-run').action).toBe('open-library');
    // "choose another file" only where a file was being chosen
    expect(toUserMessage(new AuditError('bad-task', 'row 2 has no field "a"'), 'start-run').action).toBe('none');
  });

  it('says a re-imported run is already there, not that the file is invalid', () => {
    const m = toUserMessage(new StoreError('duplicate', '"r.json": this run is already in your library (run r1)'), 'import');
    expect(m.title).toBe('Not imported: "r.json": this run is already in your library (run r1).');
    expect(m.hint).toMatch(/Nothing was imported/);
  });

  it('recognizes an engine error that crossed the worker as a plain Error with name and code', () => {
    const e = Object.assign(new Error('x'), { name: 'EngineError', code: 'out-of-memory' });
    expect(toUserMessage(e, 'run').hint).toMatch(/smaller model/);
  });

  it('maps quota errors to freeing storage', () => {
    expect(toUserMessage(new StoreError('quota-exceeded', 'full')).action).toBe('free-storage');
    expect(toUserMessage(Object.assign(new Error('q'), { name: 'QuotaExceededError' })).action).toBe('free-storage');
  });

  it('keeps the words of anything else in the headline', () => {
    expect(toUserMessage(new Error('boom'))).toEqual({ title: 'Something failed: boom.', hint: 'If it happens again, please report it with these words.', action: 'none' });
    expect(toUserMessage('text', 'render').title).toBe('This screen could not be drawn: text.');
  });
});
