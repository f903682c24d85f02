// The death ledger: an oracle outside the protocol. Every death is due to every
// client registered when it was queued; the ledger counts, per client, the deaths
// delivered once, the extra copies, those lost and those still in flight at the end,
// and whether the server reported a loss (gave up) or dropped it silently.
import { usToMs } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { round3 } from '../../model/session/index.js';

interface DeathRecord {
  readonly entityId: number;
  readonly queuedAtUs: Micros;
  readonly recipients: ReadonlySet<number>;
  /** First arrival per client. */
  readonly arrivedAtUs: Map<number, Micros>;
  /** Clients the server gave up on (non-silent expiry). */
  readonly reported: Set<number>;
}

export interface ClientDeathStats {
  client: number;
  due: number;
  delivered: number;
  lost: number;
  inFlight: number;
  duplicates: number;
}

export interface DeathStats {
  queued: number;
  /** (death, client) pairs: each death times the clients registered when it was queued. */
  pairs: number;
  delivered: number;
  /** Not delivered, and the server can no longer re-send it. */
  lost: number;
  /** Not delivered, but still pending where the game loop will re-send it. */
  inFlight: number;
  /** Copies after the first. */
  duplicates: number;
  /** Copies at a client that was not registered when the death was queued. */
  extraneous: number;
  /** Lost pairs the server reported (gave up on). */
  reportedLost: number;
  /** Lost pairs nobody reported: the silent losses. */
  unreportedLost: number;
  /** Deaths the ledger could not track (maxDeaths reached). */
  untracked: number;
  latencyMs: { max: number; mean: number; p50: number; p99: number };
  perClient: ClientDeathStats[];
}

export class DeathLedger {
  private readonly deaths = new Map<number, DeathRecord>();
  private readonly duplicates = new Map<number, number>();
  private extraneous = 0;
  private untracked = 0;
  private readonly latenciesUs: number[] = [];

  constructor(
    private readonly clients: number,
    private readonly maxDeaths: number,
  ) {}

  queued(entityId: number, recipients: readonly number[], atUs: Micros): void {
    if (this.deaths.has(entityId)) throw new Error(`rtype ledger: entity ${entityId} died twice`);
    if (this.deaths.size >= this.maxDeaths) {
      this.untracked++;
      return;
    }
    this.deaths.set(entityId, {
      entityId,
      queuedAtUs: atUs,
      recipients: new Set(recipients),
      arrivedAtUs: new Map(),
      reported: new Set(),
    });
  }

  arrived(client: number, entityId: number, atUs: Micros): void {
    const death = this.deaths.get(entityId);
    if (death === undefined) return; // untracked
    if (!death.recipients.has(client)) {
      this.extraneous++;
      return;
    }
    if (death.arrivedAtUs.has(client)) {
      this.duplicates.set(client, (this.duplicates.get(client) ?? 0) + 1);
      return;
    }
    if (atUs < death.queuedAtUs) throw new Error(`rtype ledger: entity ${entityId} arrived before it died`);
    death.arrivedAtUs.set(client, atUs);
    this.latenciesUs.push(atUs - death.queuedAtUs);
  }

  gaveUp(client: number, entityId: number): void {
    this.deaths.get(entityId)?.reported.add(client);
  }

  /** The verdict at the end of the run; `resendable` says whether the server still holds a pair. */
  stats(resendable: (client: number, entityId: number) => boolean): DeathStats {
    const per: ClientDeathStats[] = [];
    for (let k = 1; k <= this.clients; k++)
      per.push({ client: k, due: 0, delivered: 0, lost: 0, inFlight: 0, duplicates: this.duplicates.get(k) ?? 0 });
    let reportedLost = 0;
    for (const death of this.deaths.values()) {
      for (const client of death.recipients) {
        const c = per[client - 1];
        c.due++;
        if (death.arrivedAtUs.has(client)) c.delivered++;
        else if (resendable(client, death.entityId)) c.inFlight++;
        else {
          c.lost++;
          if (death.reported.has(client)) reportedLost++;
        }
      }
    }
    const sum = (f: (c: ClientDeathStats) => number): number => per.reduce((n, c) => n + f(c), 0);
    const lost = sum((c) => c.lost);
    return {
      queued: this.deaths.size + this.untracked,
      pairs: sum((c) => c.due),
      delivered: sum((c) => c.delivered),
      lost,
      inFlight: sum((c) => c.inFlight),
      duplicates: sum((c) => c.duplicates),
      extraneous: this.extraneous,
      reportedLost,
      unreportedLost: lost - reportedLost,
      untracked: this.untracked,
      latencyMs: latencySummary(this.latenciesUs),
      perClient: per,
    };
  }
}

function latencySummary(valuesUs: readonly number[]): DeathStats['latencyMs'] {
  if (valuesUs.length === 0) return { max: 0, mean: 0, p50: 0, p99: 0 };
  const sorted = [...valuesUs].sort((a, b) => a - b);
  const at = (q: number): number => usToMs(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  const mean = usToMs(sorted.reduce((n, v) => n + v, 0) / sorted.length);
  return { max: usToMs(sorted[sorted.length - 1]), mean: round3(mean), p50: at(0.5), p99: at(0.99) };
}
