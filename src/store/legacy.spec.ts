// Runs made by the previous version (its keys ignored question content): a migrated store and a
// version-1 run file keep them viewable, exportable and deletable, and a new run with the same
// settings reuses none of their records and never resumes them.
import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { conditionKey, defaultCondition } from '../audit/condition.ts';
import { runAudit } from '../audit/run.ts';
import { summarize } from '../audit/summary.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import type { Condition, LoadedTask, ProbeSpec, QuestionRecord, RunManifest } from '../audit/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { openReachDb } from './db.ts';
import { isStoreError, type StoreError } from './errors.ts';
import { exportRunJson, loadRun } from './export.ts';
import { IdbRunStore } from './idb-store.ts';
import { importRunJson } from './import.ts';
import { legacyManifestKey, probeKey } from './keys.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import { LEGACY_RUN_MESSAGE, type StoredRecordV2 } from './schema.ts';
import type { RunStore } from './store.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';

const L = 3;
const task: LoadedTask = {
  spec: { id: 'file:q.jsonl', name: 'q.jsonl', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 3, numTrain: 0 },
  test: [
    { id: 'q1', text: '1+1=', target: '2' },
    { id: 'q2', text: '2+3=', target: '5' },
    { id: 'q3', text: '4+4=', target: '8' },
  ],
  train: [],
};
const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'sampling', budget: 3, temperature: 0.7, topP: 0.9, seed: 9 }];
const condition = defaultCondition(task.spec, 'f32');
const input: CoreAuditInput = { task, condition, probes, selectors: ['majority'] };
/** a+b from "a+b=". */
const sum = (prompt: string) => prompt.slice(0, -1).split('+').reduce((n, x) => n + Number(x), 0);
// right greedily on q1 only; samples always right
const engine = () => new FakeEngine({ numLayers: L, answer: (q) => (q.sampling.kind === 'greedy' && !q.prompt.startsWith('1+1') ? '0' : String(sum(q.prompt))) });
/** Rows a run of this input computes: 3 questions × (1 deployment + 3 samples). */
const ROWS = 12;

/** What the previous version stored for this audit: the same records under its grader-version-1
 *  condition, without stop_reason, selector blindness or the decoy control. */
async function previousVersionRun(): Promise<{ manifest: RunManifest; records: QuestionRecord[]; condition: Condition }> {
  const e = engine();
  const res = await runAudit(e, input);
  const { decodeRule: _, ...beforeDecodeRule } = condition; // version 1 conditions had none
  const old: Condition = { ...beforeDecodeRule, graderVersion: 1 };
  const ck = await conditionKey(old);
  const records = res.records.map((r) => {
    const { stop_reason: _s, decoy: _d, decoy_first_success: _f, realized_decoy: _rd, reachable_decoy: _hd, ...rest } = { ...r, condition_key: ck };
    const out = rest as QuestionRecord;
    if (r.selectors) out.selectors = Object.fromEntries(Object.entries(r.selectors).map(([k, { blind: _b, ...pick }]) => [k, pick])) as QuestionRecord['selectors'];
    return out;
  });
  const info = await e.info();
  const manifest: RunManifest = {
    id: 'old-run',
    appVersion: '0.1.0',
    model: { fingerprint: info.fingerprint, name: info.name, source: 'fake' },
    task: { id: task.spec.id, version: 1, questions: 3 },
    condition: old,
    condition_key: ck,
    probes,
    engine: { ep: 'wasm', dtype: 'f32' },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    status: 'finished',
  };
  return { manifest, records, condition: old };
}

function controller(store: RunStore, e: FakeEngine) {
  return new RunController<CoreAuditInput>({ store, engine: e, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
}

/** Starts this version's audit with the same settings; returns its run and the rows it computed. */
async function startSameSettings(store: RunStore) {
  const e = engine();
  const c = controller(store, e);
  const run = await c.start(await coreRunRequest(e, await e.info(), input, { appVersion: 'test', source: 'fake', id: 'new-run' }));
  await c.idle();
  return { c, run: (await store.getRun(run.id))!, rows: e.rowsRequested };
}

async function refused(p: Promise<unknown>): Promise<StoreError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(isStoreError(e), `expected a StoreError, got ${String(e)}`).toBe(true);
  return e as StoreError;
}

describe('a store migrated from the previous version', () => {
  async function migrated() {
    const factory = new IDBFactory();
    const old = await previousVersionRun();
    const v2 = await openReachDb({ factory, version: 2 });
    const raw = v2 as unknown as { put(store: string, v: unknown): Promise<unknown> };
    const oldKey = await legacyManifestKey(old.manifest);
    await raw.put('runs', { id: 'old-run', manifest: old.manifest, manifestKey: oldKey, counters: { recordsTotal: 6, recordsDone: 6, reused: 0, attemptsComputed: ROWS, computeMs: 3, interruptions: 0 }, updatedAt: 't' });
    for (const r of old.records) {
      const row: StoredRecordV2 = { key: [r.model_fingerprint, r.task_id, r.task_version, r.condition_key, r.probe_key, r.doc_id], record: r, runIds: ['old-run'], computedBy: 'old-run', savedAt: 't' };
      await raw.put('records', row);
    }
    v2.close();
    return { store: await IdbRunStore.open({ factory, keyRange: IDBKeyRange }), old, oldKey };
  }

  it('reuses nothing for a new run with the same settings, and never resumes the old run', async () => {
    const { store, old } = await migrated();
    const { c, run, rows } = await startSameSettings(store);
    expect(run.id).toBe('new-run');
    expect(rows).toBe(ROWS);
    expect(run.counters).toMatchObject({ recordsDone: 6, reused: 0, attemptsComputed: ROWS });
    // the same questions and prompts: only the condition key (grader version) tells them apart
    const fresh = (await store.recordsForRun('new-run')).map((s) => s.key);
    const legacy = (await store.recordsForRun('old-run')).map((s) => s.key);
    expect(fresh.map((k) => k.slice(2))).toEqual(legacy.map((k) => k.slice(2)));
    expect(new Set(legacy.map((k) => k[1]))).toEqual(new Set([old.manifest.condition_key]));
    expect(new Set(fresh.map((k) => k[1]))).toEqual(new Set([run.manifest.condition_key]));
    expect(run.manifest.condition_key).not.toBe(old.manifest.condition_key);
    const e = await refused(c.resume('old-run'));
    expect(e.message).toBe(LEGACY_RUN_MESSAGE);
    store.close();
  });

  it('keeps its runs viewable, exportable (as version 1) and deletable', async () => {
    const { store, old, oldKey } = await migrated();
    const run = (await store.getRun('old-run'))!;
    expect([run.legacy, run.manifestKey, run.manifest]).toEqual([true, `legacy:${oldKey}`, old.manifest]);
    const loaded = await loadRun(store, 'old-run');
    expect([loaded.legacy, loaded.run_key, loaded.questions]).toEqual([true, null, null]);
    expect(loaded.records).toHaveLength(6);
    // sampling: 3 attempts of a budget of 3 → 'budget'; deployment → null; majority over draws
    // not chosen with the gold answer → blind
    // answers extracted by grader version 1 are not graded against a decoy: unknown, not "missed"
    for (const r of loaded.records) {
      expect(r.stop_reason).toBe(r.probe === 'deployment' ? null : 'budget');
      expect([r.decoy, r.decoy_first_success, r.realized_decoy, r.reachable_decoy]).toEqual([null, null, null, null]);
      for (const pick of Object.values(r.selectors ?? {})) expect(pick.blind).toBe(true);
    }
    // realized 1 of 3 (q1), every sample right
    const s = summarize(loaded.records);
    expect(s.realized).toBeCloseTo(1 / 3, 12);
    expect(s.probes[0].reachable).toBe(1);
    expect([s.probes[0].reachable_decoy, s.probes[0].ceiling_decoy]).toEqual([null, null]);
    expect(s.probes[0].selectors?.majority).toEqual({ accuracy: 1, blind: true, retained_gain: 1, retained_gain_ci: { lo: 1, hi: 1 }, retained_gain_reason: null, retained_gain_note: "the selector answers 3 questions correctly, 2 more than deployment's 1, of the 2 the probe reaches beyond deployment", n: 3, correct: 3 });
    const file = JSON.parse(await exportRunJson(store, 'old-run'));
    expect([file.version, 'run_key' in file, 'questions' in file]).toEqual([1, false, false]);
    const elsewhere = new MemoryRunStore();
    expect(await importRunJson(elsewhere, JSON.stringify(file), 'old.json')).toEqual({ runId: 'old-run', records: 6, stored: 6, linked: 0, legacy: true });
    expect((await elsewhere.getRun('old-run'))?.manifestKey).toBe(`legacy:${oldKey}`);
    expect((await elsewhere.getRun('old-run'))?.manifest).toEqual({ ...old.manifest, imported: { format: 'reachlab-run', file: 'old.json' } });
    // exported again from there, it keeps that provenance
    const twice = new MemoryRunStore();
    await importRunJson(twice, await exportRunJson(elsewhere, 'old-run'), 'again.json');
    expect((await twice.getRun('old-run'))?.manifest.imported).toEqual({ format: 'reachlab-run', file: 'old.json' });
    expect((await elsewhere.recordsForRun('old-run')).map((x) => x.record)).toEqual((await store.recordsForRun('old-run')).map((x) => x.record));
    await store.deleteRun('old-run');
    expect(await store.getRun('old-run')).toBeUndefined();
    expect(await store.recordsForRun('old-run')).toEqual([]);
    store.close();
  });
});

describe('a run file written by the previous version', () => {
  const fileOf = (manifest: RunManifest, records: QuestionRecord[]) => JSON.stringify({ format: 'reachlab-run', version: 1, exportedAt: 't', manifest, records });

  it('is imported as a legacy run: viewable, never reused, never resumed', async () => {
    const old = await previousVersionRun();
    // its MCTS spec had a simulation cap and a constant random-child probability: kept as written
    const mcts = { probe: 'mcts-routes', space: { kind: 'blocks', numLayers: L, minLen: 1, maxLen: 6, maxBlock: 2, maxEdits: 1 }, budget: 8, seed: 1, preset: 'cola', exploration: 1.4, lengthPenalty: 5, randomChildProb: 0.1, simulations: 100, rootBlockEdits: true };
    const manifest = { ...old.manifest, probes: [...old.manifest.probes, mcts as unknown as ProbeSpec] };
    const store = await IdbRunStore.open({ factory: new IDBFactory(), keyRange: IDBKeyRange });
    const text = fileOf(manifest, old.records);
    expect(await importRunJson(store, text, 'old.json')).toEqual({ runId: 'old-run', records: 6, stored: 6, linked: 0, legacy: true });
    const run = (await store.getRun('old-run'))!;
    expect(run.legacy).toBe(true);
    expect(run.manifestKey).toBe(`legacy:${await legacyManifestKey(manifest)}`);
    expect(run.manifest).toEqual({ ...manifest, imported: { format: 'reachlab-run', file: 'old.json' } });
    expect(run.manifest.probes[2]).toEqual(mcts);
    expect(run.counters.recordsTotal).toBe(9);
    expect(await store.getQuestions('old-run')).toBeUndefined();
    const records = (await store.recordsForRun('old-run')).map((s) => s.record);
    expect(records.map((r) => r.stop_reason).sort()).toEqual(['budget', 'budget', 'budget', null, null, null]);
    // this version's audit with the same settings computes everything
    const { c, run: fresh, rows } = await startSameSettings(store);
    expect([fresh.id, rows, fresh.counters.reused]).toEqual(['new-run', ROWS, 0]);
    expect((await refused(c.resume('old-run'))).message).toBe(LEGACY_RUN_MESSAGE);
    // importing it again says it is there
    const again = await refused(importRunJson(store, text, 'old.json'));
    expect([again.code, again.message]).toEqual(['duplicate', 'old.json: this run is already in your library (run old-run); delete it there first to import this file again']);
    store.close();
  });

  it('is refused when its condition key is not its own grader-version-1 key', async () => {
    const old = await previousVersionRun();
    const store = new MemoryRunStore();
    // records relabelled with this version's condition key, which would make them reusable
    const ck = await conditionKey(condition);
    const forged = { ...old.manifest, condition, condition_key: ck };
    const e = await refused(importRunJson(store, fileOf(forged, old.records.map((r) => ({ ...r, condition_key: ck }))), 'forged.json'));
    expect([e.code, e.message]).toEqual([
      'invalid-import',
      'forged.json: manifest.condition_key: a version 1 file must carry the key of its own grader-version-1 condition; this one does not (the file was altered)',
    ]);
    const mismatched = { ...old.manifest, condition_key: 'f'.repeat(64) };
    const e2 = await refused(importRunJson(store, fileOf(mismatched, old.records), 'bad.json'));
    expect(e2.message).toMatch(/^bad\.json: manifest\.condition_key: a version 1 file must carry the key of its own grader-version-1 condition/);
    expect(await store.listRuns()).toEqual([]);
  });

  it('is checked against the previous version\'s schema', async () => {
    const old = await previousVersionRun();
    const f = JSON.parse(fileOf(old.manifest, old.records));
    delete f.records[0].attempts[0].route;
    const e = await refused(importRunJson(new MemoryRunStore(), JSON.stringify(f), 'old.json'));
    expect([e.code, e.message]).toEqual(['invalid-import', 'old.json: records[0].attempts[0].route: expected a value (the field is missing), got nothing']);
    expect(await probeKey(old.manifest.probes[1])).toBe(old.records.find((r) => r.probe === 'sampling')!.probe_key);
  });
});
