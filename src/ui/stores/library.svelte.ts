// The Library screen's state: stored runs, selection for comparison, export, import, delete.

import type { RunManifest } from '../../audit/types';
import type { AppBackend, LibraryEntry, RunProgress, StoredRun } from '../backend';
import type { ImportProgress } from '../../store/index';
import { toUserMessage, type Doing, type UserMessage } from '../lib/errors';
import { baseFirst } from '../lib/pair-order';

export class LibraryState {
  runs = $state.raw<LibraryEntry[]>([]);
  /** Up to two run ids picked for comparison, in the order picked (A, then B). */
  selected = $state<string[]>([]);
  loading = $state(false);
  error = $state.raw<UserMessage | null>(null);
  /** Runs going on in other tabs, by run id, with their latest progress (until they end). */
  elsewhere = $state.raw<Record<string, RunProgress>>({});
  /** The import going on, as far as it has come (null when none). */
  importing = $state.raw<ImportProgress | null>(null);
  /** What became of the last import when it did not end in a run or an error (a cancel). */
  importNote = $state<string | null>(null);
  private importCancel: AbortController | null = null;
  private backend: AppBackend;

  constructor(backend: AppBackend) {
    this.backend = backend;
    backend.watchOtherTabs((p) => this.heard(p));
  }

  /** Another tab's progress: kept while its run goes on; the list is read again when a run
   *  first shows up or ends, so its stored status follows. */
  private heard(p: RunProgress): void {
    const known = p.runId in this.elsewhere;
    const { [p.runId]: _, ...rest } = this.elsewhere;
    const going = p.status === 'queued' || p.status === 'running' || p.status === 'paused';
    this.elsewhere = going ? { ...rest, [p.runId]: p } : rest;
    if (!known || !going) void this.refresh();
  }

  canCompare = $derived(this.selected.length === 2);

  async refresh(): Promise<void> {
    this.loading = true;
    try {
      this.runs = await this.backend.listRuns();
      this.selected = this.selected.filter((id) => this.runs.some((r) => r.id === id));
      this.error = null;
    } catch (e) {
      this.error = toUserMessage(e, 'library');
    } finally {
      this.loading = false;
    }
  }

  toggle(id: string, on: boolean): void {
    if (on && !this.selected.includes(id)) this.selected = [...this.selected, id].slice(-2);
    if (!on) this.selected = this.selected.filter((x) => x !== id);
  }

  async open(id: string): Promise<StoredRun | null> {
    return this.guard(() => this.backend.getRun(id));
  }

  /** The two runs chosen, a base model's before its trained one's (lib/pair-order.ts). */
  async openPair(): Promise<[StoredRun, StoredRun] | null> {
    if (!this.canCompare) return null;
    const [a, b] = this.selected;
    const pair = await this.guard(async () => [await this.backend.getRun(a), await this.backend.getRun(b)] as [StoredRun, StoredRun]);
    return pair && baseFirst(pair).pair;
  }

  async remove(id: string): Promise<void> {
    await this.guard(() => this.backend.deleteRun(id));
    this.selected = this.selected.filter((x) => x !== id);
    await this.refresh();
  }

  /** The export file of a run and the name to save it under. */
  async exportRun(id: string): Promise<{ blob: Blob; filename: string } | null> {
    const blob = await this.guard(() => this.backend.exportRun(id));
    // a run file is one JSON document
    return blob ? { blob, filename: `reachlab-${id}.json` } : null;
  }

  /** Reads, checks and stores `file` (off the page's thread where the backend can), its progress
   *  in `importing`; cancelled (cancelImport), nothing of it is stored and no error is shown. */
  async importFile(file: File): Promise<RunManifest | null> {
    const cancel = new AbortController();
    this.importCancel = cancel;
    this.importNote = null;
    this.importing = { fileName: file.name, bytesRead: 0, bytesTotal: file.size, recordsVerified: 0, recordsStored: 0, recordsTotal: null };
    try {
      const onProgress = (p: ImportProgress) => {
        if (this.importCancel === cancel) this.importing = p;
      };
      const m = await this.guard(
        () =>
          this.backend.importFile(file, { signal: cancel.signal, onProgress }).catch((e: unknown) => {
            if (cancel.signal.aborted) return null;
            throw e;
          }),
        'import',
      );
      if (cancel.signal.aborted) this.importNote = `Import of ${file.name} cancelled: nothing of it was stored.`;
      if (m) await this.refresh();
      return m;
    } finally {
      if (this.importCancel === cancel) {
        this.importCancel = null;
        this.importing = null;
      }
    }
  }

  cancelImport(): void {
    this.importCancel?.abort();
  }

  private async guard<T>(f: () => Promise<T>, doing: Doing = 'library'): Promise<T | null> {
    try {
      const out = await f();
      this.error = null;
      return out;
    } catch (e) {
      this.error = toUserMessage(e, doing);
      return null;
    }
  }
}
