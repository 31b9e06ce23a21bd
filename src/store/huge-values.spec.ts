// A run file with a 50 MB field: refused in seconds, and the refusal quotes a few hundred
// characters of it, not 50 million (issue 37, item 7).
import { describe, expect, it } from 'vitest';
import { defaultCondition } from '../audit/condition.ts';
import { FakeEngine } from '../audit/testing/fake-engine.ts';
import type { Doc, LoadedTask, ProbeSpec } from '../audit/types.ts';
import { coreAudit, coreRunRequest, type CoreAuditInput } from './core-audit.ts';
import { isStoreError } from './errors.ts';
import { exportRunJson } from './export.ts';
import { importRunJson } from './import.ts';
import { MemoryRunStore } from './memory-store.ts';
import { RunController } from './run-controller.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';

const docs: Doc[] = Array.from({ length: 2 }, (_, i) => ({ id: `q${i}`, text: `What is ${i} + ${i}?`, target: String(2 * i) }));
const task: LoadedTask = {
  spec: { id: 'test:add', name: 'add', answerFormat: 'numeric', promptTemplate: '{{question}}', metadata: { version: 1 }, numTest: 2, numTrain: 0 },
  test: docs,
  train: [],
};
const probes: ProbeSpec[] = [{ probe: 'deployment' }];
const input: CoreAuditInput = { task, condition: defaultCondition(task.spec, 'f32'), probes };

describe('huge values in a run file', () => {
  it('a 50 MB numeric response and extracted answer: refused by name in seconds, the message a few hundred characters', async () => {
    const source = new MemoryRunStore();
    const engine = new FakeEngine({ numLayers: 3, answer: () => '0' });
    const c = new RunController<CoreAuditInput>({ store: source, engine, audit: coreAudit, locks: new TabLocks(new InProcessLocks()) });
    await c.start(await coreRunRequest(engine, await engine.info(), input, { appVersion: 'test', source: 'fake', id: 'run-x' }));
    await c.idle();
    const file = JSON.parse(await exportRunJson(source, 'run-x'));
    const huge = '7'.repeat(50_000_000);
    const attempt = file.records[0].attempts[0];
    attempt.response = huge;
    attempt.extracted = huge;
    const t = performance.now();
    const e = await importRunJson(new MemoryRunStore(), JSON.stringify(file), 'huge.json').then(() => null, (err: unknown) => err);
    const ms = performance.now() - t;
    expect(isStoreError(e)).toBe(true);
    const message = (e as Error).message;
    expect(message).toMatch(/huge\.json/);
    expect(message).toMatch(/extracted/);
    expect(message).toMatch(/50,000,002 characters in all/);
    expect(message.length).toBeLessThan(1000);
    expect(ms).toBeLessThan(20_000);
  });
});
