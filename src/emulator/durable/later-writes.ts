// Writes no answer waits for (the request record: each request as it came, then as it was answered),
// held so that they cost no commit of their own: they go into the next transaction that writes
// anything (a create's), are written before the next answer is sent (flush), and otherwise within
// 10 ms. What is after an answer (its status and time, the route counts) may so be lost to a kill -9
// in those 10 ms; what came before an answer never is. Three commits a create became one: a commit, not the rows it
// writes, is what a durable create costs (the WebAssembly build writes each WAL frame with writeSync).

/** How long what is held may wait for a transaction to go with. */
const FLUSH_AFTER_MS = 10;

/** One held write, by its document: a later write of the same document replaces it. */
type Write = () => void;

export class LaterWrites {
  private held = new Map<string, Write>();
  private scheduled = false;

  constructor(
    /** Writes what is held, in a transaction of its own; called when the turn is over. */
    private readonly flushSoon: () => void,
  ) {}

  hold(key: string, write: Write): void {
    this.held.delete(key);
    this.held.set(key, write);
    if (this.scheduled) return;
    this.scheduled = true;
    // A few milliseconds, not the next turn: under load the next request's change (or answer) takes
    // them along, so that a create costs one commit, not two; idle, they are written 10 ms later.
    setTimeout(() => {
      this.scheduled = false;
      if (this.held.size > 0) this.flushSoon();
    }, FLUSH_AFTER_MS).unref();
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * Writes everything held into the transaction just begun. Were that transaction rolled back (a full
   * disk), what it took is let go, as a write of the record refused is: kept in memory only.
   */
  writeInto(): void {
    if (this.held.size === 0) return;
    const taken = this.held;
    this.held = new Map();
    for (const write of taken.values()) write();
  }
}
