// The silencing scan's per-layer mean attribution, on demand: one read-out of each failure-set
// question's deployment attempt (the look inside, engine/readout.ts), then each layer's mean MLP
// attribution over them (audit meanMlpAttribution).
import { meanMlpAttribution, type LayerAttribution } from '../../audit';
import type { Readout } from '../../engine/types';
import type { AppBackend, StoredRun } from '../backend';
import type { QuestionView } from '../lib/analysis';
import { toUserMessage } from '../lib/errors';
import { lookTargets } from '../lib/look-inside';

export type ScanAttributionState =
  | { status: 'idle' }
  | { status: 'running'; done: number; total: number }
  | { status: 'done'; layers: LayerAttribution[]; questions: number }
  | { status: 'failed'; message: string };

export class ScanAttribution {
  state = $state.raw<ScanAttributionState>({ status: 'idle' });

  constructor(
    private readonly backend: AppBackend,
    private readonly run: StoredRun,
  ) {}

  /** Reads out the deployment attempt of each failure-set question, one at a time, then averages. */
  async compute(failures: readonly QuestionView[], layers: readonly number[]): Promise<void> {
    if (this.state.status === 'running') return;
    const read = this.backend.lookInside?.bind(this.backend);
    const looks = failures.flatMap((q) => lookTargets(q).filter((t) => t.deployment).map((t) => t.look));
    if (failures.length === 0) return this.fail('The failure set is empty: no question was reachable without being realized, so there is no failure to read out.');
    if (!read) return this.fail('The mean attribution needs the engine, which this page has not started: load a model on the Setup screen, then try again.');
    if (looks.length === 0) return this.fail('No failure-set question has a deployment attempt whose route is known (an imported run), so there is nothing to read out.');
    this.state = { status: 'running', done: 0, total: looks.length };
    try {
      const readouts: Readout[] = [];
      for (const [i, look] of looks.entries()) {
        const r = await read(this.run.manifest, look);
        // a deployment answer with every gold token (graded wrong for what follows) has no token to read
        if (r.kind === 'readout') readouts.push(r);
        this.state = { status: 'running', done: i + 1, total: looks.length };
      }
      this.state = { status: 'done', layers: meanMlpAttribution(readouts, layers), questions: readouts.length };
    } catch (e) {
      const m = toUserMessage(e);
      this.fail(`${m.title.replace(/^[^:]*: /, 'The mean attribution failed: ')} ${m.hint}`);
    }
  }

  private fail(message: string): void {
    this.state = { status: 'failed', message };
  }
}
