// A counted limit on something that grows with what arrives: how much is
// held now, the most ever held, and what was refused. Each user states its
// unit (bytes, keys, datagrams) and what one entry costs in it.

export class Budget {
  /** Held now, in the budget's unit. */
  used = 0;
  /** The most held at once. */
  peak = 0;
  /** Entries refused because they did not fit, and their total size. */
  refused = 0;
  refusedAmount = 0;

  constructor(
    readonly limit: number,
    /** Names the budget in errors. */
    readonly name: string,
  ) {
    // 0 is a limit too: nothing is held (the conformance rules' "track no keys").
    if (!(Number.isSafeInteger(limit) && limit >= 0))
      throw new Error(`${name}: the limit must be a whole number, 0 or more, not ${limit}`);
  }

  /** Whether `amount` more would fit. */
  fits(amount: number): boolean {
    return this.used + amount <= this.limit;
  }

  /** Takes `amount` for a new entry; false, and counted, when it does not fit (or `room` is false). */
  take(amount: number, room = true): boolean {
    if (!(room && this.fits(amount))) {
      this.refused++;
      this.refusedAmount += amount;
      return false;
    }
    this.used += amount;
    if (this.used > this.peak) this.peak = this.used;
    return true;
  }

  /** An entry of `amount` was let go. */
  give(amount: number): void {
    if (amount > this.used) throw new Error(`${this.name}: gave back more than was taken (${amount} of ${this.used})`);
    this.used -= amount;
  }
}
