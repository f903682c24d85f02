// Shared helpers for the link tests (not a test file itself).
import { encodeDatagram } from '../../src/core/codec/index.js';
import type { AckMessage, DataMessage, Message } from '../../src/core/codec/index.js';
import { RandomStreams } from '../../src/core/engine/random.js';
import type { RandomStream } from '../../src/core/engine/random.js';
import { Simulator } from '../../src/core/engine/simulator.js';
import { micros } from '../../src/core/engine/time.js';
import { PERFECT_LINK } from '../../src/model/link/config.js';
import type { DropCause, LinkConfig } from '../../src/model/link/config.js';
import { Link } from '../../src/model/link/link.js';

export function game(seq: number, payloadBytes = 20): DataMessage {
  return {
    type: 0x32,
    reliable: true,
    ordered: false,
    fragment: false,
    seq,
    fragIndex: null,
    fragCount: null,
    payload: new Uint8Array(payloadBytes),
  };
}

export function ack(seq: number, flags = 0, fragIndex: number | null = null): AckMessage {
  return { type: 0x01, seq, flags, fragIndex };
}

export function datagram(messages: readonly Message[], peerId = 2): Uint8Array {
  const encoded = encodeDatagram({ peerId, messages });
  if (!encoded.ok) throw new Error(`test datagram does not encode: ${encoded.error.reason}`);
  return encoded.bytes;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** PERFECT_LINK with some sections replaced. */
export function linkConfig(overrides: Partial<Mutable<LinkConfig>>): LinkConfig {
  return { ...PERFECT_LINK, ...overrides };
}

/** RandomStreams that counts every uniform drawn, per stream name. */
export class CountingStreams extends RandomStreams {
  readonly draws = new Map<string, number>();

  override stream(name: string): RandomStream {
    const inner = super.stream(name);
    this.draws.set(name, 0);
    return {
      name,
      next: () => {
        this.draws.set(name, (this.draws.get(name) ?? 0) + 1);
        return inner.next();
      },
    };
  }

  get total(): number {
    let n = 0;
    for (const v of this.draws.values()) n += v;
    return n;
  }
}

export interface Arrival {
  readonly atUs: number;
  readonly bytes: Uint8Array;
  readonly uids: readonly number[];
  readonly duplicate: boolean;
  readonly sentAtUs: number;
}

interface Drop {
  readonly atUs: number;
  readonly uids: readonly number[];
  readonly cause: DropCause;
}

export interface Harness {
  readonly sim: Simulator;
  readonly link: Link;
  readonly streams: RandomStreams;
  readonly arrivals: Arrival[];
  readonly drops: Drop[];
  /** (before, after, removedIndexes) of each message-scope rewrite. */
  readonly rewrites: Array<{ before: Uint8Array; after: Uint8Array; removedIndexes: readonly number[] }>;
  /** Number of deliver() calls (must equal arrivals.length). */
  deliverCalls: number;
}

export function harness(
  config: LinkConfig,
  options: { seed?: number | string; streams?: RandomStreams; name?: string } = {},
): Harness {
  const sim = new Simulator();
  const streams = options.streams ?? new RandomStreams(options.seed ?? 1);
  const h: Harness = {
    sim,
    streams,
    arrivals: [],
    drops: [],
    rewrites: [],
    deliverCalls: 0,
    link: undefined as unknown as Link,
  };
  const link = new Link(
    sim,
    options.name ?? 'c2s',
    config,
    streams,
    () => {
      h.deliverCalls++;
    },
    {
      delivered: (bytes, uids, duplicate, sentAtUs) =>
        h.arrivals.push({ atUs: sim.now, bytes, uids, duplicate, sentAtUs }),
      dropped: (_bytes, uids, cause) => h.drops.push({ atUs: sim.now, uids, cause }),
      messagesDropped: (before, after, removedIndexes) => h.rewrites.push({ before, after, removedIndexes }),
    },
  );
  (h as { link: Link }).link = link;
  return h;
}

/** Sends `count` datagrams, datagram i at i·intervalUs with uids [i], then runs to idle. */
export function sendEvery(h: Harness, count: number, intervalUs: number, bytesOf: (i: number) => Uint8Array): void {
  for (let i = 0; i < count; i++) h.sim.at(micros(i * intervalUs), () => h.link.send(bytesOf(i), [i]));
  h.sim.runUntilIdle();
}

/** k-sigma bound for a binomial proportion estimate. */
export function binomialTolerance(p: number, n: number, k = 4): number {
  return k * Math.sqrt((p * (1 - p)) / n);
}
