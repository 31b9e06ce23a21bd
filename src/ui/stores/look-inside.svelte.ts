// The look inside a question's attempts: up to two read-outs side by side (the oldest gives way),
// each fetched once per attempt on demand and kept while the question is open.
import type { AppBackend, StoredRun } from '../backend';
import type { AttemptLookResult } from '../../engine/readout';
import { toUserMessage } from '../lib/errors';
import type { LookTarget } from '../lib/look-inside';

export type LookState = { status: 'loading' } | { status: 'done'; readout: AttemptLookResult } | { status: 'failed'; message: string };

/** How many read-outs stand side by side. */
const SIDE_BY_SIDE = 2;

export class LookInsideState {
  /** The attempts shown, oldest first. */
  shown = $state.raw<LookTarget[]>([]);
  results = $state.raw<Record<string, LookState>>({});

  constructor(
    private readonly backend: AppBackend,
    private readonly run: StoredRun,
  ) {}

  get available(): boolean {
    return typeof this.backend.lookInside === 'function';
  }

  /** Shows `t` beside the last one shown, computing its read-out unless it has one. */
  async open(t: LookTarget): Promise<void> {
    if (!this.shown.some((s) => s.key === t.key)) this.shown = [...this.shown, t].slice(-SIDE_BY_SIDE);
    const had = this.results[t.key];
    if (had && had.status !== 'failed') return;
    this.set(t.key, { status: 'loading' });
    try {
      if (!this.backend.lookInside) throw new Error('the look inside needs the engine, which this page has not started');
      this.set(t.key, { status: 'done', readout: await this.backend.lookInside(this.run.manifest, t.look) });
    } catch (e) {
      const m = toUserMessage(e);
      this.set(t.key, { status: 'failed', message: `${m.title.replace(/^[^:]*: /, 'The look inside failed: ')} ${m.hint}` });
    }
  }

  close(key: string): void {
    this.shown = this.shown.filter((s) => s.key !== key);
  }

  private set(key: string, s: LookState): void {
    this.results = { ...this.results, [key]: s };
  }
}
