// The run and study clocks: time from the wall clock, not from the last progress message (an MCTS
// question can take minutes between two records), and time left from the attempts per second
// measured since computing began, marked as a guess while the measurement is short or stale.

import { formatDuration } from './estimate';

/** Attempts done (in-flight ones included) at a wall-clock time in ms. */
export interface Sample {
  t: number;
  attempts: number;
}

/** Seconds left, and why they are only a guess (null: measured). */
export interface TimeLeft {
  sec: number;
  guess: string | null;
}

/** Below this many seconds of measurement the pace is called a guess. */
export const MIN_MEASURED_SEC = 10;

/** Attempts per second from `first` to `now`, counting the attempts done by `last`; null before any
 *  attempt after `first`. Between samples the rate falls as the wall clock runs on. */
export function attemptsPerSec(first: Sample | null, last: Sample | null, now: number): number | null {
  if (!first || !last || last.attempts <= first.attempts || now <= first.t) return null;
  return (last.attempts - first.attempts) / ((now - first.t) / 1000);
}

/** A run's time left: the attempts it has left at the measured pace. */
export function runTimeLeft(o: { left: number; first: Sample | null; last: Sample | null; now: number }): TimeLeft | null {
  const rate = attemptsPerSec(o.first, o.last, o.now);
  if (rate === null) return null;
  const measured = (o.now - o.first!.t) / 1000;
  return { sec: Math.max(0, o.left) / rate, guess: measured < MIN_MEASURED_SEC ? `measured over ${Math.round(measured)} s only` : null };
}

/** An estimate received at `at` (ms), counted down by the wall clock; `stale` when it is an earlier
 *  run's, kept while the current one has measured nothing yet. */
export interface Countdown {
  sec: number;
  at: number;
  stale: boolean;
}

export function countdown(c: Countdown | null, now: number): TimeLeft | null {
  if (!c) return null;
  return { sec: Math.max(0, c.sec - (now - c.at) / 1000), guess: c.stale ? 'from the runs before this one, until it measures its own pace' : null };
}

/** The next countdown on a new estimate (`sec`, null when the study has none now). */
export function nextCountdown(prev: Countdown | null, sec: number | null, now: number): Countdown | null {
  if (sec !== null) return { sec, at: now, stale: false };
  return prev && { ...countdown(prev, now)!, at: now, stale: true };
}

/** "about 3 min", "about 3 min (a guess: measured over 4 s only)", or `pending` when unknown. */
export function timeLeftText(t: TimeLeft | null, pending: string): string {
  if (!t) return pending;
  return `about ${formatDuration(t.sec)}${t.guess ? ` (a guess: ${t.guess})` : ''}`;
}
