// Two tabs, one audit: a Web Lock named after the manifest key lets one tab run a given audit;
// a BroadcastChannel carries that run's progress to every other tab. Both sit behind small
// interfaces so Node tests (no navigator.locks) inject their own.

import type { RunProgress } from './progress.ts';

/** The part of the Web Locks API (navigator.locks) used here. */
export interface LockManagerLike {
  request<T>(name: string, options: { ifAvailable: true }, callback: (lock: { name: string } | null) => Promise<T> | T): Promise<T>;
  query(): Promise<{ held?: { name?: string }[] }>;
}

export interface HeldLock {
  readonly name: string;
  release(): void;
}

export function auditLockName(manifestKey: string): string {
  return `reachlab-audit:${manifestKey}`;
}

export class TabLocks {
  constructor(private readonly locks: LockManagerLike) {}

  /** navigator.locks when the browser has it, else locks that only guard this tab. */
  static fromNavigator(): TabLocks {
    const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
    return new TabLocks(nav?.locks ?? new InProcessLocks());
  }

  /** The lock, or null when another tab (or this one) holds it. Held until release() or the tab closes. */
  async tryAcquire(name: string): Promise<HeldLock | null> {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    return new Promise<HeldLock | null>((resolve, reject) => {
      this.locks
        .request(name, { ifAvailable: true }, async (lock) => {
          if (!lock) {
            resolve(null);
            return;
          }
          resolve({ name, release });
          await released;
        })
        .catch(reject);
    });
  }

  async isHeld(name: string): Promise<boolean> {
    const state = await this.locks.query();
    return (state.held ?? []).some((l) => l.name === name);
  }
}

/** Exclusive ifAvailable locks within one JS realm: the fallback without navigator.locks, and the
 *  shared lock manager of simulated tabs in tests. */
export class InProcessLocks implements LockManagerLike {
  private readonly held = new Set<string>();

  async request<T>(name: string, _options: { ifAvailable: true }, callback: (lock: { name: string } | null) => Promise<T> | T): Promise<T> {
    if (this.held.has(name)) return callback(null);
    this.held.add(name);
    try {
      return await callback({ name });
    } finally {
      this.held.delete(name);
    }
  }

  async query(): Promise<{ held: { name: string }[] }> {
    return { held: [...this.held].map((name) => ({ name })) };
  }
}

// ---------------------------------------------------------------- progress across tabs

export const PROGRESS_CHANNEL = 'reachlab-progress';

/** The part of BroadcastChannel used here. */
export interface ChannelLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (ev: { data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (ev: { data: unknown }) => void): void;
  close(): void;
}

export interface ProgressMessage {
  type: 'reachlab-progress';
  progress: RunProgress;
}

/** Publishes this tab's run progress and hears every other tab's. */
export class ProgressChannel {
  private readonly channel: ChannelLike;

  constructor(channel?: ChannelLike) {
    const BC = (globalThis as { BroadcastChannel?: new (name: string) => ChannelLike }).BroadcastChannel;
    const ch = channel ?? (BC ? new BC(PROGRESS_CHANNEL) : undefined);
    if (!ch) throw new Error('BroadcastChannel is not available; pass a channel');
    this.channel = ch;
  }

  publish(progress: RunProgress): void {
    const message: ProgressMessage = { type: 'reachlab-progress', progress };
    try {
      this.channel.postMessage(message);
    } catch (e) {
      // a closed channel: the page is going away (pagehide), nobody is left to tell
      if (!(e instanceof Error && e.name === 'InvalidStateError')) throw e;
    }
  }

  /** Calls `listener` with each progress another tab publishes; returns the unsubscribe. */
  subscribe(listener: (progress: RunProgress) => void): () => void {
    const onMessage = (ev: { data: unknown }) => {
      const m = ev.data as Partial<ProgressMessage> | null;
      if (m && m.type === 'reachlab-progress' && m.progress && typeof m.progress.runId === 'string') listener(m.progress);
    };
    this.channel.addEventListener('message', onMessage);
    return () => this.channel.removeEventListener('message', onMessage);
  }

  /**
   * Like subscribe, with a lease: a run another tab reported queued or running and has not
   * reported again for `leaseMs` (its tab closed without a word, or hangs) is reported once more,
   * as interrupted. A running tab repeats its progress every HEARTBEAT_MS (run-controller.ts).
   */
  watch(listener: (progress: RunProgress) => void, leaseMs = LEASE_MS): () => void {
    const live = new Map<string, { p: RunProgress; at: number }>();
    const unsubscribe = this.subscribe((p) => {
      if (p.status === 'queued' || p.status === 'running') live.set(p.runId, { p, at: Date.now() });
      else live.delete(p.runId);
      listener(p);
    });
    const timer = setInterval(() => {
      for (const [id, { p, at }] of live) {
        if (Date.now() - at <= leaseMs) continue;
        live.delete(id);
        listener({ ...p, status: 'interrupted', message: 'the tab running it closed or stopped answering' });
      }
    }, Math.max(10, leaseMs / 4));
    return () => {
      clearInterval(timer);
      unsubscribe();
    };
  }

  close(): void {
    this.channel.close();
  }
}

/** How often a tab running an audit repeats its progress, and how long another tab waits for it
 *  before taking the run for stopped. */
export const HEARTBEAT_MS = 2_000;
const LEASE_MS = 3 * HEARTBEAT_MS;
