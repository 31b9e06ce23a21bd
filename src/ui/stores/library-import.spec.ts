// The Library's import state: progress shown while the backend imports, Cancel aborting it with
// no error shown, and a refusal shown as before.
import { describe, expect, it } from 'vitest';
import type { AppBackend } from '../backend';
import type { ImportControl } from '../../store/index';
import { StoreError } from '../../store/index';
import { TestBackend } from '../testing/test-backend';
import { LibraryState } from './library.svelte';

/** A backend whose import reports one step of progress, then waits until it is cancelled. */
function waitingBackend(): { backend: AppBackend; started: Promise<void> } {
  const backend = new TestBackend() as AppBackend;
  let began!: () => void;
  const started = new Promise<void>((r) => (began = r));
  backend.importFile = (file: File, c: ImportControl = {}) =>
    new Promise((_, reject) => {
      c.onProgress?.({ fileName: file.name, bytesRead: 5, bytesTotal: file.size, recordsVerified: 1, recordsStored: 0, recordsTotal: null });
      c.signal?.addEventListener('abort', () => reject(c.signal!.reason));
      began();
    });
  return { backend, started };
}

describe('LibraryState import', () => {
  it('shows the progress while importing; Cancel ends it with a note and no error', async () => {
    const { backend, started } = waitingBackend();
    const lib = new LibraryState(backend);
    const done = lib.importFile(new File(['0123456789'], 'samples_x.jsonl'));
    await started;
    expect(lib.importing).toEqual({ fileName: 'samples_x.jsonl', bytesRead: 5, bytesTotal: 10, recordsVerified: 1, recordsStored: 0, recordsTotal: null });
    lib.cancelImport();
    expect(await done).toBeNull();
    expect(lib.importing).toBeNull();
    expect(lib.error).toBeNull();
    expect(lib.importNote).toBe('Import of samples_x.jsonl cancelled: nothing of it was stored.');
  });

  it('shows a refused file as an error, with no progress left behind', async () => {
    const backend = new TestBackend() as AppBackend;
    backend.importFile = () => Promise.reject(new StoreError('invalid-import', 'bad.json: not JSON (oops)'));
    const lib = new LibraryState(backend);
    expect(await lib.importFile(new File(['x'], 'bad.json'))).toBeNull();
    expect(lib.importing).toBeNull();
    expect(lib.error?.title).toContain('bad.json: not JSON (oops)');
  });
});
