import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../audit/condition.ts';
import { summarize } from '../audit/summary.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask, ProbeSpec } from '../audit/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { isStoreError, type StoreError } from './errors.ts';
import { definitionsCsv, exportRunCsv, exportRunJson, loadRun, toCsv, CSV_COLUMNS } from './export.ts';
import { DEFINITIONS } from '../audit/definitions.ts';
import { runProvenance } from '../audit/provenance.ts';
import { importLmEvalSamples, importRunJson } from './import.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import type { RunStore } from './store.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { condition, freshIdbStore } from './test-helpers.ts';
import { conditionKey } from '../audit/condition.ts';
import { sha256Hex } from '../util/hash.ts';
import { PROBE_NAMES } from '../audit/probes/registry.ts';
import { parseCsvRecords as parseCsv } from '../audit/tasks/file.ts';

const L = 3;
const docs: Doc[] = [
  { id: 'q1', text: 'Is 1+1 = 2, "yes"?', target: '2' },
  { id: 'q2', text: 'line one\nline two', target: '-4' },
  { id: 'q10', text: '=HYPERLINK("http://x")', target: '6' },
];
const task: LoadedTask = {
  spec: { id: 'test:mix', name: 'mix', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 2 }, numTest: 3, numTrain: 0 },
  test: docs,
  train: [],
};
const probes: ProbeSpec[] = [{ probe: 'deployment' }, { probe: 'sampling', budget: 3, temperature: 0.8, topP: 0.9, seed: 4 }];
const input: CoreAuditInput = { task, condition: defaultCondition({ ...task.spec, id: 'builtin:mix' }, 'f32'), probes };

/** A finished run of the real audit core on the scripted engine, in `store`. */
async function auditedRun(store: RunStore): Promise<string> {
  const engine = new FakeEngine({ numLayers: L, answer: (q) => (q.sampling.kind === 'greedy' ? (q.prompt.startsWith('Is') ? '2' : '0') : q.prompt.startsWith('line') ? '-4' : '1') });
  const c = new RunController<CoreAuditInput>({ store, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
  const req = await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'run-x' });
  await c.start(req);
  await c.idle();
  expect((await store.getRun('run-x'))?.manifest.status).toBe('finished');
  return 'run-x';
}

async function refusal(p: Promise<unknown>, code: StoreError['code'] = 'invalid-import'): Promise<StoreError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(isStoreError(e), `expected a StoreError, got ${String(e)}`).toBe(true);
  expect((e as StoreError).code).toBe(code);
  return e as StoreError;
}

async function expectEmpty(store: RunStore) {
  expect(await store.listRuns()).toEqual([]);
  expect(await store.recordsForRun('run-x')).toEqual([]);
}

describe('export and import of a run', () => {
  it('exports JSON that imports into a fresh profile with the same records and summary', async () => {
    const source = await freshIdbStore();
    const runId = await auditedRun(source);
    const text = await exportRunJson(source, runId);
    const target = await freshIdbStore();
    const file = JSON.parse(text);
    const sourceRun = (await source.getRun(runId))!;
    expect([file.format, file.version, file.run_key]).toEqual(['reachlab-run', 2, sourceRun.manifestKey]);
    expect(file.questions).toEqual(await source.getQuestions(runId));
    expect(file.questions.map((q: { doc_id: string }) => q.doc_id)).toEqual(['q1', 'q2', 'q10']);
    const result = await importRunJson(target, text, 'run-x.json');
    expect(result).toEqual({ runId, records: 6, stored: 6, linked: 0, legacy: false });
    const a = (await source.recordsForRun(runId)).map((r) => r.record);
    const b = (await target.recordsForRun(runId)).map((r) => r.record);
    expect(b).toEqual(a);
    expect(summarize(b)).toEqual(summarize(a));
    const imported = (await target.getRun(runId))!;
    expect(imported.manifest).toEqual({ ...sourceRun.manifest, imported: { format: 'reachlab-run', file: 'run-x.json' } });
    expect(imported.manifestKey).toBe(sourceRun.manifestKey);
    expect(imported.legacy).toBeUndefined();
    expect(imported.counters).toMatchObject({ recordsTotal: 6, recordsDone: 6 });
    expect(await target.getQuestions(runId)).toEqual(file.questions);
    // a second import of the same file says the run is there, and changes nothing
    const again = await refusal(importRunJson(target, text, 'run-x.json'), 'duplicate');
    expect(again.message).toBe('run-x.json: this run is already in your library (run run-x); delete it there first to import this file again');
    // so does the same run under another id
    const renamed = JSON.stringify({ ...file, manifest: { ...file.manifest, id: 'run-y' } });
    const same = await refusal(importRunJson(target, renamed, 'run-y.json'), 'duplicate');
    expect(same.message).toBe('run-y.json: this run is already in your library as run run-x (same model, condition, probes and questions); delete it there first to import this file again');
    expect((await target.listRuns()).map((r) => r.id)).toEqual(['run-x']);
  });

  it('imports a run the audit core computed elsewhere as a finished run a later start returns when imported records are included', async () => {
    const source = new MemoryRunStore();
    const runId = await auditedRun(source);
    const target = await freshIdbStore();
    await importRunJson(target, await exportRunJson(source, runId), 'run-x.json');
    // the same audit started here: same run key, nothing to compute
    const engine = new FakeEngine({ numLayers: L, answer: () => '0' });
    const c = new RunController<CoreAuditInput>({ store: target, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
    const req = await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'local' });
    const run = await c.start({ ...req, includeImported: true });
    await c.idle();
    expect([run.id, run.manifest.status, engine.rowsRequested]).toEqual(['run-x', 'finished', 0]);
    // by default only records computed here are reused: the audit runs here as a new run
    const local = await c.start(req);
    await c.idle();
    expect([local.id, (await target.getRun('local'))?.manifest.status]).toEqual(['local', 'finished']);
    expect(engine.rowsRequested).toBeGreaterThan(0);
  });

  it('refuses malformed files with the first problem named, writing nothing', async () => {
    const source = new MemoryRunStore();
    const runId = await auditedRun(source);
    const good = JSON.parse(await exportRunJson(source, runId));
    const cases: [string, (f: any) => void, string][] = [
      ['format', (f) => (f.format = 'other'), 'f.json: format: expected one of "reachlab-run", got "other"'],
      ['version', (f) => (f.version = 3), "f.json: version: expected one of 1 (an earlier version's run, imported as legacy), 2, got number 3"],
      ['no version', (f) => delete f.version, "f.json: version: expected one of 1 (an earlier version's run, imported as legacy), 2, got nothing"],
      ['stop reason', (f) => (f.records[1].stop_reason = 'tired'), 'f.json: records[1].stop_reason: expected one of "budget", "space-exhausted", got "tired"'],
      ['missing stop reason', (f) => delete f.records[1].stop_reason, 'f.json: records[1].stop_reason: expected a value (the field is missing), got nothing'],
      ['route', (f) => (f.records[1].attempts[0].route = 'default'), 'f.json: records[1].attempts[0].route: expected an array, got "default"'],
      ['run key', (f) => (f.run_key = f.run_key.replace(/^./, (c: string) => (c === '0' ? '1' : '0'))), "f.json: run_key: not the key of the run's model, condition, probes and questions"],
      ['question content', (f) => (f.questions[0].doc_hash = '0'.repeat(64)), "f.json: run_key: not the key of the run's model, condition, probes and questions"],
      ['questions', (f) => f.questions.pop(), 'f.json: questions: expected 3 (manifest.task.questions), got 2'],
      ['condition', (f) => (f.manifest.condition.maxNewTokens = 9), "f.json: manifest.condition_key: not the key of the manifest's condition"],
      ['unknown condition', (f) => (f.manifest.condition = null), 'f.json: manifest.condition_key: a run whose condition is unknown (null) needs a key starting with "unknown:"'],
      [
        'record content',
        (f) => (f.records[0].doc_hash = 'another-content'),
        "f.json: records[0]: record q1/deployment does not belong to this run: its question content or prompt (doc_hash, prompt_hash) differs from the run's question q1",
      ],
      ['missing field', (f) => delete f.manifest.condition_key, 'f.json: manifest.condition_key: expected a value (the field is missing), got nothing'],
      ['wrong type', (f) => (f.records[1].attempts[0].correct = 'yes'), 'f.json: records[1].attempts[0].correct: expected true or false, got "yes"'],
      ['bad enum', (f) => (f.records[0].probe_spec.probe = 'telepathy'), `f.json: records[0].probe_spec.probe: expected one of ${PROBE_NAMES.map((n) => `"${n}"`).join(', ')}, got "telepathy"`],
      ['negative', (f) => (f.records[2].budget = -1), 'f.json: records[2].budget: expected an integer ≥ 0 ≤ 10000, got number -1'],
      ['decoy hit', (f) => (f.records[1].reachable_decoy = 'maybe'), 'f.json: records[1].reachable_decoy: expected true or false, got "maybe"'],
      ['decoy index', (f) => (f.records[1].decoy_first_success = -1), 'f.json: records[1].decoy_first_success: expected an integer ≥ 0, got number -1'],
      [
        'first of two problems',
        (f) => {
          f.records[4].doc_hash = 7;
          f.records[0].target = null;
        },
        'f.json: records[0].target: expected a string, got null',
      ],
      ['not an array', (f) => (f.records = {}), 'f.json: records: expected an array, got an object'],
      ['foreign record', (f) => (f.records[2].condition_key = 'ck-elsewhere'), 'does not belong to this run'],
      ['probe key', (f) => (f.records[3].probe_key = 'sampling:0000000000000000'), 'f.json: records[3]: record'],
      ['duplicate', (f) => f.records.push(structuredClone(f.records[0])), 'f.json: records[6]: the same question and probe as records[0]'],
      ['too many questions', (f) => (f.manifest.task.questions = 2), 'f.json: questions: expected 2 (manifest.task.questions), got 3'],
    ];
    for (const [name, mutate, message] of cases) {
      const f = structuredClone(good);
      mutate(f);
      const target = await freshIdbStore();
      const e = await refusal(importRunJson(target, JSON.stringify(f), 'f.json'));
      expect(e.message, name).toContain(message);
      await expectEmpty(target);
    }
    const e = await refusal(importRunJson(new MemoryRunStore(), '{"format": "reachlab-run",', 'f.json'));
    expect(e.message).toMatch(/^f\.json: not JSON/);
    const top = await refusal(importRunJson(new MemoryRunStore(), '[]', 'f.json'));
    expect(top.message).toBe('f.json: expected an object, got an array of 0');
  });

  it('drops a doc.raw no hash covers (its keys never reach an object prototype) and unknown fields', async () => {
    const source = new MemoryRunStore();
    const runId = await auditedRun(source);
    const f = JSON.parse(await exportRunJson(source, runId));
    f.records[0].doc.raw = JSON.parse('{"__proto__": {"polluted": true}, "question": "1+1"}');
    f.records[0].extra = 'dropped';
    const target = new MemoryRunStore();
    await importRunJson(target, JSON.stringify(f));
    const rec = (await target.recordsForRun(runId)).find((r) => r.record.doc_id === f.records[0].doc_id)!.record;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(rec.doc).not.toHaveProperty('raw');
    expect('extra' in rec).toBe(false);
  });

  it('imports a version-2 file written before the decoy control: each record graded against its decoy from the run’s own condition', async () => {
    const source = new MemoryRunStore();
    const runId = await auditedRun(source);
    const file = JSON.parse(await exportRunJson(source, runId));
    for (const r of file.records) for (const k of ['decoy', 'decoy_first_success', 'realized_decoy', 'reachable_decoy']) delete r[k];
    const target = new MemoryRunStore();
    await importRunJson(target, JSON.stringify(file), 'old.json');
    const records = (await target.recordsForRun(runId)).map((r) => r.record);
    expect(records).toEqual((await source.recordsForRun(runId)).map((r) => r.record));
    for (const r of records) {
      expect(r.decoy).not.toBeNull();
      expect(r.decoy).not.toBe(r.target);
      // the engine answers q1's samples "1", q2's "-4" (the gold), q10's "1"; deployment "2" or "0"
      const hit = r.attempts.findIndex((a) => a.extracted === r.decoy);
      expect(r.decoy_first_success).toBe(hit < 0 ? null : hit);
      expect(r.probe === 'deployment' ? r.realized_decoy : r.reachable_decoy).toBe(hit >= 0);
    }
    expect(records.find((r) => r.doc_id === 'q2' && r.probe === 'sampling')!.reachable_decoy).toBe(false);
  });

  it('exports CSV: one row per question and probe, RFC 4180 quoting, formulas defused', async () => {
    const store = new MemoryRunStore();
    const runId = await auditedRun(store);
    const csv = await exportRunCsv(store, runId);
    expect(csv.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(1 + 6);
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    // ordered by question id (numeric-aware), then probe
    expect(rows.slice(1).map((r) => `${r[col('doc_id')]}/${r[col('probe')]}`)).toEqual([
      'q1/deployment', 'q1/sampling', 'q2/deployment', 'q2/sampling', 'q10/deployment', 'q10/sampling',
    ]);
    const q2 = rows.find((r) => r[col('doc_id')] === 'q2' && r[col('probe')] === 'sampling')!;
    expect(q2[col('target')]).toBe('-4'); // a plain number stays a number
    expect(q2[col('attempts')]).toBe('3');
    expect(q2[col('stop_reason')]).toBe('budget');
    expect(q2[col('correct_attempts')]).toBe('3');
    expect(q2[col('first_success')]).toBe('0');
    expect(q2[col('reachable')]).toBe('true');
    expect(q2[col('realized')]).toBe('');
    // the decoy control beside them: q2's samples all say the gold, never its decoy
    expect(q2[col('decoy')]).toMatch(/^-\d+$/); // a negative number like the gold (-4)
    expect(q2[col('decoy')]).not.toBe('-4');
    expect([q2[col('decoy_first_success')], q2[col('reachable_decoy')], q2[col('realized_decoy')]]).toEqual(['', 'false', '']);
    expect(q2[col('extracted_answers')]).toBe("'-4 | -4 | -4");
    const q1 = rows.find((r) => r[col('doc_id')] === 'q1' && r[col('probe')] === 'deployment')!;
    expect(q1[col('realized')]).toBe('true');
    expect(q1[col('stop_reason')]).toBe('');
  });

  it("writes the tables' definitions sidecar: the run's provenance and every definition, one row each, cells defused", async () => {
    const store = new MemoryRunStore();
    const run = await loadRun(store, await auditedRun(store));
    const csv = definitionsCsv(runProvenance(run.run_key!, run.manifest), { app: '1.2.3', commit: '=cmd' });
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual(['section', 'name', 'value']);
    const value = (section: string, name: string) => rows.find((r) => r[0] === section && r[1] === name)?.[2];
    expect(value('exported by', 'commit')).toBe("'=cmd");
    expect(value('run', 'run key')).toBe(run.run_key);
    expect(value('model', 'fingerprint')).toBe(run.manifest.model.fingerprint);
    expect(value('model', 'revision')).toBe('not recorded');
    expect(value('condition', 'condition key')).toBe(run.manifest.condition_key);
    expect(value('condition', 'maxNewTokens')).toBe(String(run.manifest.condition!.maxNewTokens));
    expect(value('engine', 'dtype')).toBe(run.manifest.engine!.dtype);
    expect(JSON.parse(value('probe', 'sampling')!)).toEqual(run.manifest.probes[1]);
    expect(rows.filter((r) => r[0] === 'definition').map((r) => [r[1], r[2]])).toEqual(DEFINITIONS.map((d) => [d.term, d.definition]));
  });

  it('writes CSV per RFC 4180 with a formula guard, and reads back what it wrote', () => {
    const cells = ['plain', 'a,b', 'say "hi"', 'two\nlines', '=1+1', '+1+2', '@SUM(A1)', '=HYPERLINK("x","y")', '\tcmd', '-3', '+1e3', -2.5, null, undefined, NaN, false];
    const header = cells.map((_, i) => `c${i}`);
    const csv = toCsv(header, [cells]);
    expect(csv).toBe(
      `${header.join(',')}\r\nplain,"a,b","say ""hi""","two\nlines","'=1+1","'+1+2","'@SUM(A1)","'=HYPERLINK(""x"",""y"")","'\tcmd",-3,+1e3,-2.5,,,,false\r\n`,
    );
    expect(parseCsv(csv)[1]).toEqual(['plain', 'a,b', 'say "hi"', 'two\nlines', "'=1+1", "'+1+2", "'@SUM(A1)", '\'=HYPERLINK("x","y")', "'\tcmd", '-3', '+1e3', '-2.5', '', '', '', 'false']);
    // leading whitespace before the formula character
    const spaced = [' =1+1', '\n=cmd', '  @SUM(A1)', ' \t+1', ' -3', '\n4', ' text'];
    expect(parseCsv(toCsv(spaced.map((_, i) => `c${i}`), [spaced]))[1]).toEqual(["' =1+1", "'\n=cmd", "'  @SUM(A1)", "' \t+1", ' -3', '\n4', ' text']);
    expect(toCsv(['a'], [])).toBe('a\r\n');
    expect(() => toCsv(['a', 'b'], [['1']])).toThrow(/row 0 has 1 cells, header has 2/);
  });
});

const harnessLine = (o: Record<string, unknown>) =>
  JSON.stringify({
    doc_id: 0,
    doc: { question: 'What is 40+2?', answer: '#### 42' },
    target: '42',
    arguments: { gen_args_0: { arg_0: 'Question: What is 40+2?\nAnswer:', arg_1: { until: ['Question:'], do_sample: false } } },
    resps: [['The answer is 42.']],
    filtered_resps: ['42'],
    filter: 'strict-match',
    metrics: ['exact_match'],
    doc_hash: 'd0',
    prompt_hash: 'p0',
    target_hash: 't0',
    exact_match: 1.0,
    ...o,
  });

describe('lm-evaluation-harness samples import', () => {
  const opts = {
    runId: 'lm-eval-1',
    appVersion: 'test',
    model: { fingerprint: 'hf:Qwen/Qwen2.5-0.5B', name: 'Qwen/Qwen2.5-0.5B', source: 'lm-eval' },
    task: { id: 'hub:gsm8k', version: 3 },
    fileName: 'samples_gsm8k_2025.jsonl',
  };

  it('imports samples as realized records of a finished run', async () => {
    const text = [
      harnessLine({}),
      harnessLine({ doc_id: 1, doc: { question: 'What is 2+2?' }, target: 4, resps: [['I think 5']], filtered_resps: ['5'], doc_hash: 'd1', prompt_hash: 'p1', exact_match: 0.0 }),
      '',
      harnessLine({ doc_id: 2, filtered_resps: ['[invalid]'], doc_hash: 'd2', exact_match: 0 }),
    ].join('\n');
    const store = await freshIdbStore();
    const res = await importLmEvalSamples(store, text, opts);
    expect(res).toEqual({ runId: 'lm-eval-1', records: 3, stored: 3, linked: 0, legacy: false });
    const run = await store.getRun('lm-eval-1');
    // only what the file says: no condition, no engine, where it came from
    const ck = `unknown:${await sha256Hex(text)}`;
    expect(run?.manifest).toMatchObject({
      status: 'finished',
      task: { id: 'hub:gsm8k', version: 3, questions: 3 },
      probes: [{ probe: 'deployment' }],
      condition: null,
      condition_key: ck,
      engine: null,
      imported: { format: 'lm-eval-samples', file: 'samples_gsm8k_2025.jsonl' },
    });
    // a measured condition key is a SHA-256 hex digest; "unknown:" never is one
    const measured = await conditionKey(condition);
    expect(measured).toMatch(/^[0-9a-f]{64}$/);
    expect(ck).not.toMatch(/^[0-9a-f]{64}$/);
    expect(ck).not.toBe(measured);
    expect(await store.getQuestions('lm-eval-1')).toEqual([
      { doc_id: '0', doc_hash: 'd0', prompt_hash: 'p0' },
      { doc_id: '1', doc_hash: 'd1', prompt_hash: 'p1' },
      { doc_id: '2', doc_hash: 'd2', prompt_hash: 'p0' },
    ]);
    const records = (await store.recordsForRun('lm-eval-1')).map((r) => r.record);
    const r0 = records.find((r) => r.doc_id === '0')!;
    expect(r0).toMatchObject({
      target: '42',
      arguments: { prompt: 'Question: What is 40+2?\nAnswer:' },
      resps: ['The answer is 42.'],
      filtered_resps: ['42'],
      realized: true,
      first_success: 0,
      doc_hash: 'd0',
      prompt_hash: 'p0',
      doc: { id: '0', text: 'What is 40+2?', target: '42' },
    });
    expect(r0.attempts).toEqual([{ index: 0, route: null, silence: [], response: 'The answer is 42.', extracted: '42', correct: true, meanLogprob: null }]);
    expect(records.every((r) => r.stop_reason === null && r.condition_key === ck)).toBe(true);
    const r1 = records.find((r) => r.doc_id === '1')!;
    expect([r1.target, r1.realized, r1.first_success]).toEqual(['4', false, null]);
    expect(records.find((r) => r.doc_id === '2')!.invalid).toBe(1);
    const s = summarize(records);
    expect(s.n).toBe(3);
    expect(s.realized).toBeCloseTo(1 / 3, 12);
    // the imported run exports and imports again, nulls and provenance kept
    const copy = new MemoryRunStore();
    await importRunJson(copy, await exportRunJson(store, 'lm-eval-1'), 'copy.json');
    expect(summarize((await copy.recordsForRun('lm-eval-1')).map((r) => r.record))).toEqual(s);
    // the same records, but for the samples' own rows (doc.raw), which a run file's hashes do not cover
    const withoutRaw = records.map(({ doc: { raw: _raw, ...doc }, ...r }) => ({ ...r, doc }));
    expect((await copy.recordsForRun('lm-eval-1')).map((r) => r.record)).toEqual(withoutRaw);
    expect((await copy.getRun('lm-eval-1'))?.manifest).toEqual(run?.manifest);
    expect((await copy.getRun('lm-eval-1'))?.manifestKey).toBe(run?.manifestKey);
    // the same samples file again: already in the library, under its id or another
    const again = await refusal(importLmEvalSamples(store, text, opts), 'duplicate');
    expect(again.message).toBe('samples_gsm8k_2025.jsonl: this run is already in your library (run lm-eval-1); delete it there first to import this file again');
    const other = await refusal(importLmEvalSamples(store, text, { ...opts, runId: 'lm-eval-2' }), 'duplicate');
    expect(other.message).toMatch(/^samples_gsm8k_2025\.jsonl: this run is already in your library as run lm-eval-1 /);
    // one changed byte is another file: another run, another unknown condition
    const res2 = await importLmEvalSamples(store, text + '\n', { ...opts, runId: 'lm-eval-3' });
    expect(res2.records).toBe(3);
    expect((await store.getRun('lm-eval-3'))?.manifest.condition_key).toBe(`unknown:${await sha256Hex(text + '\n')}`);
  });

  it('reads loglikelihood samples and an acc metric', async () => {
    const line = JSON.stringify({
      doc_id: 5,
      doc: { question: 'Which is a fruit?', choices: ['rock', 'apple'] },
      target: 1,
      arguments: [['Question: Which is a fruit?\nAnswer:', ' rock'], ['Question: Which is a fruit?\nAnswer:', ' apple']],
      resps: [[['-5.1', 'False']], [['-0.3', 'True']]],
      filtered_resps: [['-5.1', 'False'], ['-0.3', 'True']],
      doc_hash: 'h',
      prompt_hash: 'ph',
      acc: 1.0,
    });
    const store = new MemoryRunStore();
    await importLmEvalSamples(store, line, { ...opts, metric: 'acc' });
    const [r] = (await store.recordsForRun('lm-eval-1')).map((x) => x.record);
    expect(r.realized).toBe(true);
    expect(r.target).toBe('1');
    expect(r.resps).toEqual(['["-5.1","False"]', '["-0.3","True"]']);
    expect(r.arguments.prompt).toBe('Question: Which is a fruit?\nAnswer:');
  });

  it('refuses a bad samples file with the line and the problem, writing nothing', async () => {
    const cases: [string, string][] = [
      [[harnessLine({}), harnessLine({ doc_id: 1, filtered_resps: 'forty-two' })].join('\n'), 'samples_gsm8k_2025.jsonl line 2: filtered_resps: expected an array, got "forty-two"'],
      [[harnessLine({}), '{oops'].join('\n'), 'samples_gsm8k_2025.jsonl line 2: not JSON'],
      [harnessLine({ doc_id: -1 }), 'line 1: doc_id: expected a non-negative integer or a non-empty string, got number -1'],
      [harnessLine({ doc_hash: undefined }), 'line 1: doc_hash: expected a value (the field is missing)'],
      [harnessLine({ prompt_hash: '' }), 'line 1: prompt_hash: expected a non-empty string, got ""'],
      [harnessLine({ exact_match: undefined }), 'line 1: expected a metric (exact_match, acc, acc_norm, pass@1, em) with a number or true/false, found none'],
      [[harnessLine({}), harnessLine({})].join('\n'), 'line 2: doc_id 0 repeats line 1'],
      ['\n\n', 'samples_gsm8k_2025.jsonl: no samples'],
      ['[1,2]', 'line 1: expected a JSON object, got an array of 2'],
    ];
    for (const [text, message] of cases) {
      const store = await freshIdbStore();
      const e = await refusal(importLmEvalSamples(store, text, opts));
      expect(e.message).toContain(message);
      expect(await store.listRuns()).toEqual([]);
    }
  });
});
