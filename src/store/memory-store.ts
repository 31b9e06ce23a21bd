// RunStore in memory: the fallback when IndexedDB is unavailable (private window) or full.
// Same contract as IdbRunStore, values cloned on the way in and out like IndexedDB does,
// so an audit runs and exports the same way; nothing survives the tab.

import type { QuestionIdentity } from '../audit/condition.ts';
import { StoreError } from './errors.ts';
import type { RecordKey } from './keys.ts';
import type { StoredRecord, StoredRun, StoredStudy } from './schema.ts';
import { afterDelete, placed } from './idb-store.ts';
import { latestRun, withoutImported } from './records.ts';
import type { ImportRunOptions, PutOutcome, RecordItem, RunStore } from './store.ts';

export class MemoryRunStore implements RunStore {
  readonly kind = 'memory' as const;
  private readonly runs = new Map<string, StoredRun>();
  private readonly records = new Map<string, StoredRecord>();
  private readonly questions = new Map<string, QuestionIdentity[]>();
  private readonly studies = new Map<string, StoredStudy>();
  private closed = false;

  /** Why the app is on memory storage, for the UI ("IndexedDB refused to open: …"). */
  constructor(readonly reason?: string) {}

  async putRun(run: StoredRun, questions?: QuestionIdentity[]): Promise<void> {
    this.check();
    if (questions) this.questions.set(run.id, structuredClone(questions));
    this.runs.set(run.id, structuredClone(run));
  }

  async createRun(run: StoredRun, questions: QuestionIdentity[], reuse: (r: StoredRun) => boolean): Promise<StoredRun> {
    this.check();
    const existing = latestRun([...this.runs.values()].filter((r) => r.manifestKey === run.manifestKey && reuse(r)));
    if (existing) return structuredClone(existing);
    await this.putRun(run, questions);
    return structuredClone(run);
  }

  async putStudy(study: StoredStudy): Promise<void> {
    this.check();
    this.studies.set(study.plan_key, structuredClone(study));
  }

  async getStudy(planKey: string): Promise<StoredStudy | undefined> {
    this.check();
    return clone(this.studies.get(planKey));
  }

  async listStudies(): Promise<StoredStudy[]> {
    this.check();
    return [...this.studies.values()].map((s) => structuredClone(s));
  }

  async deleteStudy(planKey: string): Promise<void> {
    this.check();
    this.studies.delete(planKey);
  }

  async getQuestions(runId: string): Promise<QuestionIdentity[] | undefined> {
    this.check();
    return clone(this.questions.get(runId));
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    this.check();
    return clone(this.runs.get(id));
  }

  async listRuns(): Promise<StoredRun[]> {
    this.check();
    return [...this.runs.values()].sort((a, b) => cmp(a.id, b.id)).map((r) => structuredClone(r));
  }

  async runsByManifestKey(manifestKey: string): Promise<StoredRun[]> {
    return (await this.listRuns()).filter((r) => r.manifestKey === manifestKey);
  }

  async deleteRun(id: string): Promise<void> {
    this.check();
    const lost = new Map<string, number>();
    for (const [k, rec] of this.records) {
      if (!rec.runIds.includes(id)) continue;
      const next = afterDelete(rec, id, lost);
      if (next) this.records.set(k, next);
      else this.records.delete(k);
    }
    const file = this.runs.get(id)?.manifest.imported?.file ?? 'the deleted import';
    for (const [other, n] of lost) {
      const run = this.runs.get(other);
      if (run) this.runs.set(other, withoutImported(run, n, file));
    }
    this.questions.delete(id);
    this.runs.delete(id);
  }

  async putRecord(runId: string, item: RecordItem, run?: StoredRun): Promise<PutOutcome> {
    this.check();
    const k = keyString(item.key);
    const { value, outcome } = placed(this.records.get(k), runId, item);
    if (value) this.records.set(k, structuredClone(value));
    if (run) this.runs.set(run.id, structuredClone(run));
    return outcome;
  }

  async putRecords(runId: string, items: RecordItem[], run?: StoredRun): Promise<PutOutcome[]> {
    this.check();
    // all or nothing, like the IndexedDB transaction: every key is checked before anything is written
    for (const item of items) compareKeys(item.key, item.key);
    const out: PutOutcome[] = [];
    for (const item of items) out.push(await this.putRecord(runId, item));
    if (run) this.runs.set(run.id, structuredClone(run));
    return out;
  }

  async linkRecords(runId: string, keys: RecordKey[], run?: StoredRun): Promise<number> {
    this.check();
    let linked = 0;
    for (const key of keys) {
      const k = keyString(key);
      const existing = this.records.get(k);
      if (existing && !existing.runIds.includes(runId)) {
        this.records.set(k, { ...existing, runIds: [...existing.runIds, runId] });
        linked++;
      }
    }
    if (run) this.runs.set(run.id, structuredClone(run));
    return linked;
  }

  async keysInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<RecordKey[]> {
    this.check();
    return this.sorted()
      .filter((r) => compareKeys(r.key, lower) >= 0 && compareKeys(r.key, upper) <= 0)
      .map((r) => structuredClone(r.key));
  }

  async recordsInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<StoredRecord[]> {
    this.check();
    return this.sorted()
      .filter((r) => compareKeys(r.key, lower) >= 0 && compareKeys(r.key, upper) <= 0)
      .map((r) => structuredClone(r));
  }

  async keysForRun(runId: string): Promise<RecordKey[]> {
    return (await this.recordsForRun(runId)).map((r) => r.key);
  }

  async recordsForRun(runId: string): Promise<StoredRecord[]> {
    this.check();
    return this.sorted()
      .filter((r) => r.runIds.includes(runId))
      .map((r) => structuredClone(r));
  }


  async importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[], o: ImportRunOptions = {}): Promise<{ stored: number; linked: number }> {
    this.check();
    // All or nothing, like the IndexedDB transaction: every key and the signal are checked before
    // anything is written; once begun, the writes run to the end.
    for (const item of items) compareKeys(item.key, item.key);
    o.signal?.throwIfAborted();
    let stored = 0;
    let linked = 0;
    for (const item of items) {
      const outcome = await this.putRecord(run.id, item);
      if (outcome === 'stored') stored++;
      else if (outcome === 'linked') linked++;
    }
    o.onStored?.(items.length);
    if (questions) this.questions.set(run.id, structuredClone(questions));
    this.runs.set(run.id, structuredClone(run));
    return { stored, linked };
  }

  close(): void {
    this.closed = true;
  }

  private sorted(): StoredRecord[] {
    return [...this.records.values()].sort((a, b) => compareKeys(a.key, b.key));
  }

  private check(): void {
    if (this.closed) throw new StoreError('internal', 'the in-memory store was closed');
  }
}

function clone<T>(v: T | undefined): T | undefined {
  return v === undefined ? undefined : structuredClone(v);
}

function keyString(key: RecordKey): string {
  return JSON.stringify(key);
}

function cmp<T extends string | number>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** IndexedDB key order for the key kinds records use: number < string < array. */
function compareKeys(a: IDBValidKey, b: IDBValidKey): number {
  const rank = (k: IDBValidKey) => (typeof k === 'number' && !Number.isNaN(k) ? 0 : typeof k === 'string' ? 1 : Array.isArray(k) ? 2 : -1);
  const ra = rank(a);
  const rb = rank(b);
  if (ra < 0 || rb < 0) throw new StoreError('internal', 'memory store keys are numbers, strings or arrays of them');
  if (ra !== rb) return ra - rb;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareKeys(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  return cmp(a as string | number, b as string | number);
}
