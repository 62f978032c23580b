// Answers counted by status, printed after a fuzz run: a run that only ever
// met one refusal tests little, so the spread is part of the figures.
export class StatusTally {
  private readonly counts = new Map<number, number>();

  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }

  /** `200×12 400×88`, statuses in order. */
  toString(): string {
    return [...this.counts]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
  }
}
