// The R-Type server's ACK scheme (rtype-ack-system.md): the critical-packet store,
// one pending list per user, and each game-loop frame: queue, send, expire, resend.
// The network side (registration, confirmations) is inbox.ts. Every behaviour that
// differs between the document and the code reads a switch (switches.ts).
import { msToUs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { expireStore, resendDue } from './maintenance.js';
import type { MaintenanceContext } from './maintenance.js';
import type { PendingEntry } from './pending.js';
import type { RtypeLimits, RtypeTiming } from './params.js';
import { CriticalStore } from './store.js';
import type { StoredPacket } from './store.js';
import type { RtypeSwitches } from './switches.js';
import { encodeDeath, encodePacket } from './wire.js';
import { ServerInbox } from './inbox.js';
import { newServerCounters } from './counters.js';
import type { FrameStats, ServerCounters } from './counters.js';
import { UserRegistry } from './users.js';
import type { User } from './users.js';

/** The server's own id in the header's `id` field (the spec does not say whose id it is). */
export const SERVER_ID = 0;

export type SendKind = 'critical' | 'resend' | 'position';

export interface RtypeServerHooks {
  /** Puts one datagram for `client` on the wire. */
  send(client: number, bytes: Uint8Array, kind: SendKind): void;
  registered?(client: number): void;
  /** A critical packet was queued and first sent to these clients. */
  criticalQueued?(entityId: number, ackId: number, recipients: readonly number[]): void;
  /** Expiry that is not silent: the server gives up on `client` receiving this death. */
  gaveUp?(client: number, entityId: number): void;
}

/** The frame being run: its stats as endFrame reports them, and what it needs meanwhile. */
interface Frame extends FrameStats {
  readonly nowUs: Micros;
  readonly tick: number;
  /** (client, ack id) pairs already re-sent this frame: a second copy is excess. */
  readonly resentPairs: Set<number>;
}

const TWO_32 = 2 ** 32;

export class RtypeServer {
  readonly counters: ServerCounters = newServerCounters();
  readonly store: CriticalStore;
  /** Pending-list entries that point at an expired packet: nothing but a confirmation removes them. */
  danglingEntries = 0;
  private readonly registry: UserRegistry;
  /** The real `_users`, which the network side and `sendPacket` use. */
  private readonly users: readonly User[];
  /** What the game loop iterates. */
  private readonly loopUsers: readonly User[];
  /** `getAckId()`'s static counter. */
  private lastAckId = 0;
  private readonly inbox: ServerInbox;
  private frame: Frame | null = null;
  private readonly ctx: MaintenanceContext;

  constructor(
    readonly switches: RtypeSwitches,
    readonly timing: RtypeTiming,
    private readonly limits: RtypeLimits,
    private readonly hooks: RtypeServerHooks,
  ) {
    this.store = new CriticalStore(limits.maxStoreEntries);
    this.registry = new UserRegistry(limits.maxPendingPerUser);
    this.users = this.registry.users;
    this.inbox = new ServerInbox(
      switches,
      this.registry,
      this.counters,
      (removed) => this.forget(removed),
      (client) => hooks.registered?.(client),
    );
    // The game object copies the user list at construction, before anyone connected.
    this.loopUsers = switches.loopHoldsStaleCopies ? [...this.users] : this.users;
    const ticks = switches.thresholdsInTicks;
    this.ctx = {
      switches,
      timing,
      store: this.store,
      loopUsers: this.loopUsers,
      clockNow: () => (ticks ? this.open().tick : this.open().nowUs),
      stampOf: (p) => (ticks ? p.tick : p.queuedAtUs),
      span: (ms) => (ticks ? ms : msToUs(ms)),
      resend: (packet, user) => this.resend(packet, user),
      expired: (packet) => this.expired(packet),
      countComparisons: (n) => (this.counters.scanComparisons += n),
    };
  }

  get registeredClients(): number[] {
    return this.registry.clients;
  }

  /** Entries over every real user's pending list. */
  pendingTotal(): number {
    return this.registry.pendingTotal();
  }

  pendingMaxPerUser(): number {
    return this.registry.pendingMaxPerUser();
  }

  pendingLimitHits(): number {
    return this.registry.pendingLimitHits();
  }

  /** Whether the game loop can still re-send this death to this client. */
  isResendable(client: number, entityId: number): boolean {
    const user = this.loopUsers.find((u) => u.client === client);
    return user !== undefined && user.list.view.some((e) => e.packet.live && e.packet.entityId === entityId);
  }

  beginFrame(nowUs: Micros, tick: number): void {
    if (this.frame !== null) throw new Error('rtype server: a frame is already open');
    this.frame = {
      nowUs,
      tick,
      datagrams: 0,
      criticalSends: 0,
      resendDatagrams: 0,
      resendCalls: 0,
      excessResends: 0,
      maxCallsPerUser: 0,
      resentPairs: new Set(),
    };
  }

  /** A death: ACK id, store, every user's pending list, send to all (rtype-ack-system.md "Usage"). */
  queueCritical(entityId: number): void {
    const frame = this.open();
    if (this.lastAckId >= 0xffff_ffff) throw new Error('rtype server: ACK ids exhausted');
    const ackId = ++this.lastAckId;
    const sw = this.switches;
    const packet: StoredPacket = {
      ackId,
      entityId,
      tick: frame.tick,
      queuedAtUs: frame.nowUs,
      key: sw.pendingHoldsTicks ? frame.tick : ackId,
      wire: encodeDeath({ id: SERVER_ID, ack: sw.ackZeroedOnSend ? 0 : ackId }, entityId),
      live: true,
      refs: 0,
    };
    this.counters.criticalQueued++;
    if (this.store.add(packet)) {
      const lastSentAt = this.ctx.clockNow();
      for (const user of this.loopUsers) {
        // `for (auto tmp : _users)`: the entry goes onto a copy that is then thrown away.
        if (sw.pendingListsOnCopies) this.counters.entriesOnCopies++;
        else user.list.add({ key: packet.key, packet, sends: 1, lastSentAt });
      }
    }
    const recipients = this.registeredClients;
    this.hooks.criticalQueued?.(entityId, ackId, recipients);
    for (const client of recipients) if (this.emit(client, packet.wire, 'critical')) frame.criticalSends++;
  }

  /** An ordinary update, ack 0 (rtype-ack-system.md "Other Packets"), to every user. */
  broadcastPosition(entityId: number, x: number, y: number): void {
    this.open();
    const wire = encodePacket({ id: SERVER_ID, ack: 0 }, { kind: 'position', entityId, x, y });
    for (const user of this.users) this.emit(user.client, wire, 'position');
  }

  /** The per-frame ACK work: expiry, then resends. */
  maintain(): void {
    this.open();
    expireStore(this.ctx);
    const maxCalls = resendDue(this.ctx);
    const frame = this.open();
    if (maxCalls > frame.maxCallsPerUser) frame.maxCallsPerUser = maxCalls;
  }

  endFrame(): FrameStats {
    const f = this.open();
    this.frame = null;
    return {
      datagrams: f.datagrams,
      criticalSends: f.criticalSends,
      resendDatagrams: f.resendDatagrams,
      resendCalls: f.resendCalls,
      excessResends: f.excessResends,
      maxCallsPerUser: f.maxCallsPerUser,
    };
  }

  /** A UDP datagram from `client` (the network thread, on arrival). */
  receiveUdp(client: number, bytes: Uint8Array): void {
    this.inbox.udp(client, bytes);
  }

  /** A confirmation on `client`'s TCP side channel. */
  receiveTcp(client: number, bytes: Uint8Array): void {
    this.inbox.tcp(client, bytes);
  }

  private resend(packet: StoredPacket, user: User): void {
    const frame = this.open();
    frame.resendCalls++;
    this.counters.resendCalls++;
    // `_network.sendPacket` goes to every client; the document's step 3 to the waiting user.
    const targets: readonly User[] = this.switches.resendEveryTickToAll ? this.users : [user];
    for (const target of targets) {
      const needed = this.needed(frame, target, packet);
      if (!this.emit(target.client, packet.wire, 'resend')) continue;
      frame.resendDatagrams++;
      this.counters.resendDatagrams++;
      if (!needed) {
        frame.excessResends++;
        this.counters.excessResends++;
      }
    }
  }

  /** A resend is needed once per frame per (client, packet) the server is still waiting on. */
  private needed(frame: Frame, target: User, packet: StoredPacket): boolean {
    const pair = target.client * TWO_32 + packet.ackId;
    if (frame.resentPairs.has(pair) || !target.list.hasKey(packet.key)) return false;
    frame.resentPairs.add(pair);
    return true;
  }

  private expired(packet: StoredPacket): void {
    const c = this.counters;
    c.expiredPackets++;
    if (!this.switches.silentDropAtExpiry) {
      for (const user of this.loopUsers) {
        for (const entry of user.list.removePacket(packet)) {
          c.expiredEntries++;
          this.hooks.gaveUp?.(user.client, entry.packet.entityId);
        }
      }
    }
    // Entries left behind (silent drop, or users the loop cannot see) now dangle.
    c.strandedEntries += packet.refs;
    this.danglingEntries += packet.refs;
  }

  private forget(removed: readonly PendingEntry[]): void {
    for (const e of removed) if (!e.packet.live) this.danglingEntries--;
    if (this.danglingEntries < 0) throw new Error('rtype server: dangling entry count below zero');
  }

  private emit(client: number, bytes: Uint8Array, kind: SendKind): boolean {
    const frame = this.open();
    if (frame.datagrams >= this.limits.maxDatagramsPerFrame) {
      this.counters.sendLimitHits++;
      return false;
    }
    frame.datagrams++;
    this.counters.datagramsSent[kind]++;
    this.hooks.send(client, bytes, kind);
    return true;
  }

  private open(): Frame {
    if (this.frame === null) throw new Error('rtype server: no frame is open (call beginFrame first)');
    return this.frame;
  }
}
