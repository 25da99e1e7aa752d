// How many requests may be in flight: up to --concurrency, fewer while the server says it is too busy.
// A 429 halves the window and holds every new start until its Retry-After has passed; each success
// then widens the window again by 1/window (additive increase, multiplicative decrease, as TCP does),
// so a server that keeps answering 429 is asked more slowly rather than hammered, and a burst of 429s
// costs a pause, never a sample: the request is simply made again.

export class AdaptiveLimit {
  private window: number;
  private inFlight = 0;
  private resumeAt = 0;
  private readonly waiting: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.window = max;
  }

  get current(): number {
    return Math.max(1, Math.floor(this.window));
  }

  /** Resolves when a request may start; call release() when it ends. */
  acquire(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.pump();
    });
  }

  /** `unused`: given back with no request made (a wait for the budget): the window stays as it is. */
  release(outcome: 'ok' | 'throttled' | 'failed' | 'unused', retryAfterMs = 0): void {
    this.inFlight--;
    if (outcome === 'ok') this.window = Math.min(this.max, this.window + 1 / this.window);
    if (outcome === 'throttled') {
      this.window = Math.max(1, this.window / 2);
      this.resumeAt = Math.max(this.resumeAt, this.now() + retryAfterMs);
    }
    this.pump();
  }

  private pump(): void {
    const wait = this.resumeAt - this.now();
    if (wait > 0) {
      if (!this.timer)
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
      return;
    }
    while (this.waiting.length > 0 && this.inFlight < this.current) {
      this.inFlight++;
      this.waiting.shift()!();
    }
  }

  /**
   * Lets every waiter go at once (the run is stopping: each sees that and gives its turn back), and
   * the pause with them: Ctrl-C must not wait out a Retry-After.
   */
  wakeAll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.resumeAt = 0;
    for (const resolve of this.waiting.splice(0)) {
      this.inFlight++;
      resolve();
    }
  }

  /** Lets the process end: no timer is left waiting. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
