// A closed tab's run stops showing as running in another tab without a reload: the running tab
// repeats its progress (heartbeat) and says so on pagehide; a listener's lease lapses otherwise.
import { describe, expect, it } from 'vitest';
import type { RunProgress } from './progress.ts';
import { RunController, type RunRequest } from './run-controller.ts';
import { InProcessLocks, ProgressChannel, TabLocks } from './tab-lock.ts';
import { CountingEngine, fakeAudit, freshIdbStore, makeManifest, questionsOf, type FakeAuditInput } from './test-helpers.ts';

const request = (): RunRequest<FakeAuditInput> => {
  const manifest = makeManifest({ id: 'lease' }, 3);
  const qs = questionsOf(3);
  return { manifest, questions: qs, input: { manifest, questions: qs } };
};
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runningTab() {
  const channel = new ProgressChannel();
  const engine = new CountingEngine();
  engine.hold(); // the audit stays running
  const c = new RunController<FakeAuditInput>({ store: await freshIdbStore(), engine, audit: fakeAudit, locks: new TabLocks(new InProcessLocks()), channel, heartbeatMs: 20 });
  const held = new Promise<void>((r) => (engine.onHeld = r));
  await c.start(request());
  await held;
  return { channel, engine, c };
}

function watcher(leaseMs: number) {
  const channel = new ProgressChannel();
  const heard: RunProgress[] = [];
  const stop = channel.watch((p) => heard.push(p), leaseMs);
  return { heard, close: () => (stop(), channel.close()) };
}

describe('another tab’s running audit', () => {
  it('stays running while its tab beats, and is reported interrupted once the tab is gone', async () => {
    const other = watcher(100);
    const a = await runningTab();
    await wait(250);
    expect(other.heard.length).toBeGreaterThan(0);
    expect(other.heard.every((p) => p.status !== 'interrupted'), 'the heartbeat keeps the lease').toBe(true);
    a.channel.close(); // the tab is closed without a word
    await wait(250);
    expect(other.heard.at(-1)).toMatchObject({ runId: 'lease', status: 'interrupted', message: 'the tab running it closed or stopped answering' });
    other.close();
    await a.c.cancel('lease').catch(() => {});
  });

  it('is reported interrupted at once when its tab says it is closing (pagehide)', async () => {
    const other = watcher(60_000);
    const a = await runningTab();
    await wait(50);
    a.c.announceClosing();
    a.channel.close(); // the page is gone after pagehide: nothing more from it
    await wait(50);
    expect(other.heard.at(-1)).toMatchObject({ runId: 'lease', status: 'interrupted', message: 'the tab running it closed' });
    other.close();
    await a.c.cancel('lease');
  });
});
