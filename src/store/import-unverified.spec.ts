// Issue 43: nothing unverified is stored from a run file. A record's doc.raw is covered by no hash
// (doc_hash covers id, text, target and choices), so it is dropped; a key of a questions[] entry
// the file format does not define is refused by name.
import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../audit/condition.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask } from '../audit/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { exportRunJson, loadRun } from './export.ts';
import { importRunJson } from './import.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';

const docs: Doc[] = Array.from({ length: 2 }, (_, i) => ({ id: `q${i}`, text: `${i}+${i}=`, target: String(2 * i), raw: { question: `${i}+${i}=`, answer: 2 * i } }));
const task: LoadedTask = {
  spec: { id: 'test:add', name: 'add', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 2, numTrain: 0 },
  test: docs,
  train: [],
};
const input: CoreAuditInput = { task, condition: defaultCondition(task.spec, 'f32'), probes: [{ probe: 'deployment' }] };

async function exported(): Promise<any> {
  const source = new MemoryRunStore();
  const engine = new FakeEngine({ numLayers: 3, answer: () => '0' });
  const c = new RunController<CoreAuditInput>({ store: source, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
  await c.start(await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'run-u' }));
  await c.idle();
  return JSON.parse(await exportRunJson(source, 'run-u'));
}

describe('a run file stores nothing unverified', () => {
  it('drops doc.raw (no hash covers it), edited or not', async () => {
    const file = await exported();
    expect(file.records[0].doc.raw).toEqual({ question: '0+0=', answer: 0 });
    file.records[0].doc.raw = { question: 'edited: 2+2=5', answer: 5 };
    const store = new MemoryRunStore();
    await importRunJson(store, JSON.stringify(file), 'edited.json');
    const stored = (await loadRun(store, 'run-u')).records;
    expect(stored).toHaveLength(2);
    for (const r of stored) expect(r.doc).not.toHaveProperty('raw');
  });

  it('refuses a questions[] entry with a key of its own, by name', async () => {
    const file = await exported();
    file.questions[1].note = '<b>unverified</b>';
    const e = await importRunJson(new MemoryRunStore(), JSON.stringify(file), 'extra.json').then(() => null, (err: unknown) => err as Error);
    expect(e?.message).toMatch(/questions\[1\]\.note: expected no such field \(a question is doc_id, doc_hash and prompt_hash\), got "<b>unverified<\/b>"/);
  });
});
