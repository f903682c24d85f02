// The server's `_users`: who registered, each with a pending list, and the
// receive-side clear of rtype-ack-system.md §4. The game loop may hold its own
// stale copy of the list (loopHoldsStaleCopies); the network side uses this one.
import { PendingList } from './pending.js';
import type { PendingEntry } from './pending.js';

export interface User {
  /** The client number (its address). */
  readonly client: number;
  readonly list: PendingList;
}

/** What one confirmation removed. */
export interface Clear {
  /** Entries removed from the confirming user's own list. */
  readonly own: readonly PendingEntry[];
  /** Entries removed from other users' lists. */
  readonly others: readonly PendingEntry[];
}

export class UserRegistry {
  readonly users: User[] = [];
  private readonly byClient = new Map<number, User>();

  constructor(private readonly maxPendingPerUser: number) {}

  has(client: number): boolean {
    return this.byClient.has(client);
  }

  get clients(): number[] {
    return this.users.map((u) => u.client);
  }

  /** Adds a user; false when it was already registered. */
  register(client: number): boolean {
    if (this.byClient.has(client)) return false;
    const user: User = { client, list: new PendingList(this.maxPendingPerUser) };
    this.users.push(user);
    this.byClient.set(client, user);
    return true;
  }

  /**
   * Erases `key` after `client` confirmed it. With `break` we read the clear as the
   * confirming user's own entry; without it (everyone), every user holding it loses it.
   */
  clear(client: number, key: number, everyone: boolean): Clear {
    const sender = this.byClient.get(client);
    const own: PendingEntry[] = [];
    const others: PendingEntry[] = [];
    const targets: readonly User[] = everyone ? this.users : sender === undefined ? [] : [sender];
    for (const user of targets) (user === sender ? own : others).push(...user.list.removeKey(key));
    return { own, others };
  }

  pendingTotal(): number {
    return this.users.reduce((n, u) => n + u.list.size, 0);
  }

  pendingMaxPerUser(): number {
    return this.users.reduce((n, u) => Math.max(n, u.list.size), 0);
  }

  pendingLimitHits(): number {
    return this.users.reduce((n, u) => n + u.list.limitHits, 0);
  }
}
