import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { exportRunJson } from './export.ts';
import { openRunStore } from './open.ts';
import { RunController } from './run-controller.ts';
import { InProcessLocks, TabLocks } from './tab-lock.ts';
import { CountingEngine, fakeAudit, makeManifest, questionsOf, type FakeAuditInput } from './test-helpers.ts';

describe('openRunStore', () => {
  it('opens IndexedDB when it can', async () => {
    const { store, warning } = await openRunStore({ factory: new IDBFactory(), keyRange: IDBKeyRange });
    expect(store.kind).toBe('indexeddb');
    expect(warning).toBeUndefined();
    store.close();
  });

  it('falls back to memory in a private window, and the audit still runs and exports', async () => {
    const factory = {
      open() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    } as unknown as IDBFactory;
    const { store, warning } = await openRunStore({ factory });
    expect(store.kind).toBe('memory');
    expect(warning).toMatch(/IndexedDB refused to open \(SecurityError: The operation is insecure\.\); runs are kept in memory only/);
    const engine = new CountingEngine();
    const c = new RunController<FakeAuditInput>({ store, engine, audit: fakeAudit, locks: new TabLocks(new InProcessLocks()) });
    const manifest = makeManifest({}, 3);
    await c.start({ manifest, questions: questionsOf(3), input: { manifest, questions: questionsOf(3) } });
    await c.idle();
    const file = JSON.parse(await exportRunJson(store, manifest.id));
    expect(file.records).toHaveLength(6);
    expect(file.manifest.status).toBe('finished');
  });
});
