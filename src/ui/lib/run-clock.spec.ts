import { describe, expect, it } from 'vitest';
import { attemptsPerSec, countdown, MIN_MEASURED_SEC, nextCountdown, runTimeLeft, timeLeftText } from './run-clock';

describe('the run clock', () => {
  const first = { t: 0, attempts: 100 };
  it('measures attempts per second from the start of computing to the wall clock, falling between messages', () => {
    const last = { t: 20_000, attempts: 200 };
    expect(attemptsPerSec(first, last, 20_000)).toBe(5);
    // no message for 8 minutes: the pace is what the wall clock says, not the last message's
    expect(attemptsPerSec(first, last, 500_000)).toBeCloseTo(100 / 500, 12);
    expect(attemptsPerSec(first, { t: 5_000, attempts: 100 }, 5_000)).toBeNull();
    expect(attemptsPerSec(null, last, 1)).toBeNull();
  });

  it('gives time left from the attempts left at that pace, a guess while measured only briefly', () => {
    const last = { t: 20_000, attempts: 200 };
    expect(runTimeLeft({ left: 80, first, last, now: 20_000 })).toEqual({ sec: 16, guess: null });
    // eight minutes later without a message: time left grows instead of standing at 16 s
    expect(runTimeLeft({ left: 80, first, last, now: 500_000 })!.sec).toBeCloseTo(400, 9);
    const early = runTimeLeft({ left: 80, first, last: { t: 2_000, attempts: 110 }, now: 2_000 })!;
    expect(early.guess).toBe('measured over 2 s only');
    expect(2).toBeLessThan(MIN_MEASURED_SEC);
    expect(timeLeftText(early, '—')).toBe('about 16 s (a guess: measured over 2 s only)');
    expect(timeLeftText(null, '— (measured from the first attempts)')).toBe('— (measured from the first attempts)');
  });

  it("counts a study's estimate down by the wall clock, and keeps it, marked a guess, while a new run measures nothing", () => {
    const c = nextCountdown(null, 300, 0)!;
    expect(countdown(c, 60_000)).toEqual({ sec: 240, guess: null });
    // run 5 of 12 starts: the study has no estimate of its own yet
    const kept = nextCountdown(c, null, 60_000)!;
    expect(countdown(kept, 90_000)).toEqual({ sec: 210, guess: 'from the runs before this one, until it measures its own pace' });
    expect(countdown(nextCountdown(kept, 120, 90_000), 90_000)).toEqual({ sec: 120, guess: null });
    expect(nextCountdown(null, null, 5)).toBeNull();
    expect(countdown(c, 10_000_000)!.sec).toBe(0);
  });
});
