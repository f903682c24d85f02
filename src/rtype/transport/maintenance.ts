// What the game loop does to the ACK store every frame (rtype-ack-system.md §2,
// "ACK Timeout and Retransmission"): expire old packets, then resend. Two resend
// timers: the document's scan over users × pending list × store, and the repaired
// design's per-(packet, user) timer. Both walk the users the loop can see.
import type { StoredPacket } from './store.js';
import type { CriticalStore } from './store.js';
import type { RtypeSwitches } from './switches.js';
import type { RtypeTiming } from './params.js';
import type { User } from './users.js';

/** What the maintenance pass needs from the server. */
export interface MaintenanceContext {
  readonly switches: RtypeSwitches;
  readonly timing: RtypeTiming;
  readonly store: CriticalStore;
  /** The users the game loop iterates (a stale copy under loopHoldsStaleCopies). */
  readonly loopUsers: readonly User[];
  /** Now, in the clock the thresholds use: µs, or raw ticks under thresholdsInTicks. */
  clockNow(): number;
  /** When the packet was queued, in the same clock. */
  stampOf(packet: StoredPacket): number;
  /** A threshold of the spec in the same clock (`ms` µs, or `ms` raw ticks). */
  span(ms: number): number;
  /** One `sendPacket` call for `user` (the server fans it out). */
  resend(packet: StoredPacket, user: User): void;
  /** A packet left the store: clean or strand the entries that point to it. */
  expired(packet: StoredPacket): void;
  /** The real code's comparison count of the scan (its CPU cost). */
  countComparisons(n: number): void;
}

/** Step 1: remove packets older than expireAfter (`tmpPacket.second + 1500 < _tick`). */
export function expireStore(ctx: MaintenanceContext): void {
  const now = ctx.clockNow();
  const limit = ctx.span(ctx.timing.expireAfterMs);
  for (const packet of ctx.store.removeExpired((p) => ctx.stampOf(p) + limit < now)) ctx.expired(packet);
}

/** Steps 2-3 with the resend timer the switches choose; returns the most calls made for one user. */
export function resendDue(ctx: MaintenanceContext): number {
  return ctx.switches.resendTimer === 'scan' ? resendScan(ctx) : resendPerPacket(ctx);
}

/**
 * The document's loop. A packet matches an entry by key, and every match older than
 * resendAfter is re-sent, every tick ("Try again next frame if still not acknowledged").
 * k packets queued in one tick under pendingHoldsTicks match each of k equal entries: k².
 */
function resendScan(ctx: MaintenanceContext): number {
  const now = ctx.clockNow();
  const after = ctx.span(ctx.timing.resendAfterMs);
  let maxCalls = 0;
  for (const user of ctx.loopUsers) {
    if (ctx.store.size === 0) break;
    if (user.list.size === 0) continue;
    ctx.countComparisons(user.list.size * ctx.store.size);
    let calls = 0;
    for (const entry of user.list.view) {
      for (const packet of ctx.store.matching(entry.key)) {
        if (ctx.stampOf(packet) + after < now) {
          ctx.resend(packet, user);
          calls++;
        }
      }
    }
    if (calls > maxCalls) maxCalls = calls;
  }
  return maxCalls;
}

/**
 * The repaired timer: each entry re-sends its own packet once retryInterval has passed
 * since its last send. Under resendEveryTickToAll, past the first interval it fires every tick.
 */
function resendPerPacket(ctx: MaintenanceContext): number {
  const now = ctx.clockNow();
  const interval = ctx.span(ctx.timing.retryIntervalMs);
  const everyTick = ctx.switches.resendEveryTickToAll;
  let maxCalls = 0;
  for (const user of ctx.loopUsers) {
    let calls = 0;
    for (const entry of user.list.view) {
      const packet = entry.packet;
      if (!packet.live) continue;
      const due = everyTick ? now - ctx.stampOf(packet) >= interval : now - entry.lastSentAt >= interval;
      if (!due) continue;
      entry.sends++;
      entry.lastSentAt = now;
      ctx.resend(packet, user);
      calls++;
    }
    if (calls > maxCalls) maxCalls = calls;
  }
  return maxCalls;
}
