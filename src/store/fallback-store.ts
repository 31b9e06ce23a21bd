// The store after IndexedDB ran out of space mid-audit: new writes go to memory, reads see both,
// so the Library keeps showing the runs IndexedDB holds and a finished stored audit is found (never
// recomputed). Each run status write is also tried on IndexedDB with the run's records from memory,
// in one transaction (write-back): once space returns, the IndexedDB copy is complete and carries
// the run's status; while it is full, the copy stays as it was (a restart marks it interrupted,
// and starting it again resumes it). Records only IndexedDB holds are read, never linked to a run
// computed in memory.

import type { QuestionIdentity } from '../audit/condition.ts';
import type { RecordKey } from './keys.ts';
import { MemoryRunStore } from './memory-store.ts';
import { keyId, latestRun } from './records.ts';
import type { StoredRecord, StoredRun, StoredStudy } from './schema.ts';
import type { ImportRunOptions, PutOutcome, RecordItem, RunStore } from './store.ts';

export class FallbackRunStore implements RunStore {
  readonly kind = 'memory' as const;
  readonly memory: MemoryRunStore;

  constructor(
    /** The IndexedDB store that ran out of space. */
    readonly disk: RunStore,
    reason: string,
  ) {
    this.memory = new MemoryRunStore(reason);
  }

  async putRun(run: StoredRun, questions?: QuestionIdentity[]): Promise<void> {
    await this.memory.putRun(run, questions);
    await this.writeBack(run);
  }

  async createRun(run: StoredRun, questions: QuestionIdentity[], reuse: (r: StoredRun) => boolean): Promise<StoredRun> {
    const stored = latestRun((await this.disk.runsByManifestKey(run.manifestKey)).filter(reuse));
    return stored && !(await this.memory.getRun(stored.id)) ? stored : this.memory.createRun(run, questions, reuse);
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    return (await this.memory.getRun(id)) ?? this.disk.getRun(id);
  }

  async listRuns(): Promise<StoredRun[]> {
    return merged(await this.memory.listRuns(), await this.disk.listRuns(), (r) => r.id);
  }

  async runsByManifestKey(manifestKey: string): Promise<StoredRun[]> {
    return merged(await this.memory.runsByManifestKey(manifestKey), await this.disk.runsByManifestKey(manifestKey), (r) => r.id);
  }

  async getQuestions(runId: string): Promise<QuestionIdentity[] | undefined> {
    return (await this.memory.getQuestions(runId)) ?? this.disk.getQuestions(runId);
  }

  async deleteRun(id: string): Promise<void> {
    await this.memory.deleteRun(id);
    await this.disk.deleteRun(id);
  }

  putRecord(runId: string, item: RecordItem, run?: StoredRun): Promise<PutOutcome> {
    return this.memory.putRecord(runId, item, run);
  }

  putRecords(runId: string, items: RecordItem[], run?: StoredRun): Promise<PutOutcome[]> {
    return this.memory.putRecords(runId, items, run);
  }

  linkRecords(runId: string, keys: RecordKey[], run?: StoredRun): Promise<number> {
    return this.memory.linkRecords(runId, keys, run);
  }

  keysInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<RecordKey[]> {
    return this.memory.keysInRange(lower, upper);
  }

  recordsInRange(lower: IDBValidKey[], upper: IDBValidKey[]): Promise<StoredRecord[]> {
    return this.memory.recordsInRange(lower, upper);
  }

  async keysForRun(runId: string): Promise<RecordKey[]> {
    return (await this.recordsForRun(runId)).map((r) => r.key);
  }

  async recordsForRun(runId: string): Promise<StoredRecord[]> {
    return merged(await this.memory.recordsForRun(runId), await this.disk.recordsForRun(runId), (r) => keyId(r.key));
  }

  importRun(run: StoredRun, items: RecordItem[], questions?: QuestionIdentity[], o?: ImportRunOptions): Promise<{ stored: number; linked: number }> {
    return this.memory.importRun(run, items, questions, o);
  }

  putStudy(study: StoredStudy): Promise<void> {
    return this.memory.putStudy(study);
  }

  async getStudy(planKey: string): Promise<StoredStudy | undefined> {
    return (await this.memory.getStudy(planKey)) ?? this.disk.getStudy(planKey);
  }

  async listStudies(): Promise<StoredStudy[]> {
    return merged(await this.memory.listStudies(), await this.disk.listStudies(), (s) => s.plan_key);
  }

  async deleteStudy(planKey: string): Promise<void> {
    await this.memory.deleteStudy(planKey);
    await this.disk.deleteStudy(planKey);
  }

  close(): void {
    this.memory.close();
    this.disk.close();
  }

  /** The run and its records from memory onto IndexedDB, all or nothing; a full disk leaves the
   *  IndexedDB copy as it was. */
  private async writeBack(run: StoredRun): Promise<void> {
    const records = await this.memory.recordsForRun(run.id);
    const questions = await this.getQuestions(run.id);
    try {
      await this.disk.importRun(run, records.map((s) => ({ key: s.key, record: s.record, ...(s.imported ? { imported: s.imported } : {}) })), questions);
    } catch {
      // best effort: memory holds the run; the IndexedDB copy stays as it was
    }
  }
}

/** Both lists, the first's entry winning where both hold one id, in the second's order then new. */
function merged<T>(first: T[], second: T[], id: (x: T) => string): T[] {
  const mine = new Map(first.map((x) => [id(x), x]));
  const out = second.map((x) => mine.get(id(x)) ?? x);
  const seen = new Set(second.map(id));
  return [...out, ...first.filter((x) => !seen.has(id(x)))];
}
