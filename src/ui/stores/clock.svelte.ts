// The wall clock as runes state: `now` ticks each second while started, so a screen's elapsed time
// and time left move between progress messages.

export class Clock {
  now = $state(0);
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly read: () => number = () => Date.now()) {
    this.now = read();
  }

  /** Reads the clock now. */
  tick(): number {
    this.now = this.read();
    return this.now;
  }

  start(): void {
    this.tick();
    if (this.timer === null) this.timer = setInterval(() => this.tick(), 1000);
  }

  stop(): void {
    this.tick();
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
