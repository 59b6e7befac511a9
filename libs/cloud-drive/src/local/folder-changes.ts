/**
 * What this process's watches of one folder saw change, so that a read of
 * the folder's changes may check only the names that changed instead of
 * every file in it (a folder of thousands of files is read on every
 * notification). It answers only when it can be sure: a watch has been
 * open without a gap since the read's start time, every event named its
 * file, and the folder was read whole within the rescan period; otherwise
 * the read lists the folder whole, as before.
 */
export class FolderChanges {
  /** Names seen by a watch, and when last. */
  private readonly seen = new Map<string, number>();
  /** Since when `seen` is complete (Infinity while no watch is open). */
  private completeSince = Number.POSITIVE_INFINITY;
  private openWatches = 0;
  private lastWholeRead = Number.NEGATIVE_INFINITY;

  constructor(
    /** How long a result from `seen` is trusted after a whole read (the rescan period). */
    private readonly wholeReadEveryMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A watch opened (or reopened after an error): names are complete from now on. */
  opened(): void {
    if (this.openWatches === 0) this.completeSince = this.now();
    this.openWatches += 1;
  }

  /** A watch closed or failed: with none left, nothing is known. */
  closed(): void {
    this.openWatches = Math.max(0, this.openWatches - 1);
    if (this.openWatches === 0) {
      this.completeSince = Number.POSITIVE_INFINITY;
      this.seen.clear();
    }
  }

  /** A watch event; without a name (the platform did not say), only a whole read can tell what changed. */
  saw(name: string | null): void {
    const at = this.now();
    if (name === null || name.includes('/')) this.completeSince = Math.max(this.completeSince, at);
    else this.seen.set(name, at);
  }

  get watched(): boolean {
    return this.openWatches > 0;
  }

  /** The names that may have changed at or after `since`, or undefined when only a whole read can tell. */
  changedSince(since: number): string[] | undefined {
    if (this.openWatches === 0 || since < this.completeSince || this.now() - this.lastWholeRead >= this.wholeReadEveryMs) return undefined;
    const names: string[] = [];
    for (const [name, at] of this.seen) if (at >= since) names.push(name);
    return names;
  }

  /** A whole read started at `startedAt`: names seen well before it are dropped (a read from before then lists the folder whole). */
  readWhole(startedAt: number, keepMs: number): void {
    this.lastWholeRead = startedAt;
    const horizon = startedAt - keepMs;
    for (const [name, at] of this.seen) if (at < horizon) this.seen.delete(name);
    if (this.openWatches > 0) this.completeSince = Math.max(this.completeSince, horizon);
  }
}
