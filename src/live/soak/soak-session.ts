// `bcsim soak`'s live half: N clients of a scenario play against a real server
// for as long as the user asks, and a MinuteMeter reads every datagram as it
// crosses our sockets, so the figures exist minute by minute while it runs and
// nothing grows with the session's length but the minute rows (bounded). A
// server that stops answering is noticed within SILENCE_US, with its last
// datagrams; the clients' connections then time out and the soak ends.
import type { Socket } from 'node:dgram';
import { toHex } from '../../core/codec/index.js';
import { ONE_SECOND_US, RandomStreams, addUs, micros, usToSeconds } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { MinuteMeter } from '../../analysis/capture/index.js';
import type { MinuteRow } from '../../analysis/capture/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { connectionEnded } from '../../model/transport/index.js';
import type { ConnectionState, TransportSwitches } from '../../model/transport/index.js';
import { BYTES_PER_MIB } from '../wire-log.js';
import type { HostPort } from '../endpoint.js';
import { LivePeer } from '../peer/live-peer.js';
import type { StopReason } from '../peer/live-peer.js';
import type { WallClock } from '../wall-clock.js';

/** No datagram from the server for this long, while a connection is open: it stopped answering. */
export const SILENCE_US = micros(15_000_000);
/** The server's last datagrams kept to show when it falls silent, and the bytes shown of each. */
const LAST_DATAGRAMS = 8;
const SHOWN_BYTES = 48;
/** Silences recorded; later ones are counted. */
const MAX_SILENCES = 64;
/** The soak keeps only the join's datagrams (a refused checksum answer is read from them); the meter reads the rest as it goes. */
const SOAK_WIRE_LOG_BYTES = 2 * BYTES_PER_MIB;

export interface SoakOptions {
  readonly scenario: Scenario;
  readonly switches: TransportSwitches;
  readonly seed: number;
  readonly clients: number;
  readonly durationUs: Micros;
  /** --loss: Bernoulli loss at our sockets, both directions; null = none. */
  readonly loss: number | null;
  readonly sockets: readonly Socket[];
  readonly server: HostPort;
  readonly clock?: WallClock;
  /** Called every `progressEveryUs` (default 10 s) with the soak's state. */
  readonly progress?: (status: SoakStatus) => void;
  readonly progressEveryUs?: Micros;
  /** --rejoin: a client whose connection the server ended joins again this long after; null: it stays out. */
  readonly rejoinAfterUs?: Micros | null;
}

export interface SoakStatus {
  readonly elapsedS: number;
  readonly datagramsIn: number;
  readonly datagramsOut: number;
  readonly inGame: number;
  readonly clients: number;
  /** The largest server ACK-outbox estimate over the connections now, its dead zone, and the behaviour it follows. */
  readonly outbox: number | null;
  readonly deadZone: number | null;
  readonly behaviour: string;
}

export interface Silence {
  /** When the server's last datagram before the silence came, and when the soak noticed it. */
  readonly lastDatagramS: number;
  readonly noticedS: number;
  /** When a datagram came again (null: never, within the soak). */
  readonly endedS: number | null;
  readonly lastDatagrams: ReadonlyArray<{ readonly atS: number; readonly connection: number; readonly hex: string }>;
}

export interface SoakClient {
  readonly client: number;
  readonly connection: number;
  readonly joinedAtS: number | null;
  readonly state: ConnectionState;
  /** When the server's last datagram on this connection came (null: none came). */
  readonly lastServerDatagramS: number | null;
  /** The server's reliable seq started again before the u16 wrap on this connection (docs/sources.md 1): how often, and the first time. */
  readonly serverSeqRestarts: number;
  readonly firstServerSeqRestart: { atS: number; fromSeq: number; toSeq: number } | null;
}

export interface SoakMeasured {
  readonly endS: number;
  readonly stopReason: StopReason;
  /** Ended before --duration: by a signal, or because every connection ended. */
  readonly cutShort: boolean;
  readonly rows: readonly MinuteRow[];
  readonly rowsNotKept: number;
  /** Every connection our clients opened, in order: one per client, and one more per rejoin (--rejoin). */
  readonly clients: readonly SoakClient[];
  /** Joins again after the server ended a connection (--rejoin). */
  readonly rejoins: number;
  readonly wire: { sent: number; received: number; lostOut: number; lostIn: number; unreadable: number };
  readonly silences: readonly Silence[];
  readonly silencesNotKept: number;
}

export class Soak {
  readonly live: LivePeer;
  readonly meter: MinuteMeter;
  readonly done: Promise<SoakMeasured>;
  private readonly last: Array<{ atUs: number; connection: number; bytes: Uint8Array }> = [];
  private lastServerUs = 0;
  /** The server's last datagram on each connection (by live index). */
  private readonly lastServerUsOf = new Map<number, number>();
  private readonly silences: Array<{
    lastUs: number;
    noticedUs: number;
    endedUs: number | null;
    shown: Silence['lastDatagrams'];
  }> = [];
  private silencesNotKept = 0;

  constructor(private readonly options: SoakOptions) {
    this.meter = new MinuteMeter((connection) => this.givenUp(connection));
    const streams = new RandomStreams(options.seed);
    this.live = new LivePeer({
      role: 'client',
      scenario: options.scenario,
      switches: options.switches,
      seed: options.seed,
      sockets: options.sockets,
      remote: options.server,
      clients: options.clients,
      durationUs: options.durationUs,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      wireLogBytes: SOAK_WIRE_LOG_BYTES,
      rejoinAfterUs: options.rejoinAfterUs ?? null,
      ...(options.loss === null ? {} : { loss: { probability: options.loss, stream: streams.stream('soak-loss') } }),
      onWire: (r) => this.onWire(r.connection, r.from === 'local' ? 'client' : 'server', r.timeUs, r.bytes),
    });
    this.done = this.live.done.then((reason) => this.measured(reason));
  }

  start(): void {
    const clock = this.live.clock;
    const every = this.options.progressEveryUs ?? micros(10_000_000);
    let nextProgressUs = every;
    const tick = clock.after(ONE_SECOND_US, () => {
      for (const c of this.live.places.served()) if (connectionEnded(c.peer.state)) this.meter.end(c.id, clock.now);
      this.meter.until(clock.now);
      this.watchSilence(clock.now);
      if (clock.now >= nextProgressUs) {
        nextProgressUs = addUs(nextProgressUs, every);
        this.options.progress?.(this.status());
      }
      clock.reschedule(tick, addUs(clock.now, ONE_SECOND_US));
    });
    this.live.start();
  }

  stop(reason: StopReason): void {
    this.live.stop(reason);
  }

  status(): SoakStatus {
    let outbox: number | null = null;
    let deadZone: number | null = null;
    let behaviour = 'unknown';
    for (const c of this.meter.live()) {
      if (c.server.ackOutbox !== null && (outbox === null || c.server.ackOutbox > outbox)) {
        outbox = c.server.ackOutbox;
        deadZone = c.server.deadZone;
        behaviour = c.server.ackBehaviour;
      }
    }
    return {
      elapsedS: usToSeconds(this.live.clock.now),
      datagramsIn: this.live.wire.received,
      datagramsOut: this.live.wire.sent,
      inGame: this.live.connections.filter((c) => c.joinedAtUs !== null).length,
      clients: this.live.connections.length,
      outbox,
      deadZone,
      behaviour,
    };
  }

  private onWire(connection: number, from: 'client' | 'server', timeUs: number, bytes: Uint8Array): void {
    this.meter.add(connection, from, timeUs, bytes);
    if (from !== 'server') return;
    this.lastServerUs = timeUs;
    this.lastServerUsOf.set(connection, timeUs);
    const open = this.silences.at(-1);
    if (open !== undefined && open.endedUs === null) open.endedUs = timeUs;
    if (this.last.length >= LAST_DATAGRAMS) this.last.shift();
    this.last.push({ atUs: timeUs, connection, bytes: bytes.slice(0, SHOWN_BYTES) });
  }

  private watchSilence(nowUs: number): void {
    const open = this.silences.at(-1);
    if ((open !== undefined && open.endedUs === null) || nowUs - this.lastServerUs < SILENCE_US) return;
    if (!this.live.connections.some((c) => c.peer.state === 'open')) return;
    if (this.silences.length >= MAX_SILENCES) {
      this.silencesNotKept++;
      return;
    }
    const shown = this.last.map((d) => ({ atS: usToSeconds(d.atUs), connection: d.connection, hex: toHex(d.bytes) }));
    this.silences.push({ lastUs: this.lastServerUs, noticedUs: nowUs, endedUs: null, shown });
  }

  private givenUp(connection: number): number {
    const c = this.live.places.served().find((x) => x.id === connection);
    return c === undefined ? 0 : c.peer.counters.gaveUp;
  }

  private measured(reason: StopReason): SoakMeasured {
    const endUs = this.live.clock.now;
    this.meter.finish(endUs);
    const byConnection = new Map(this.meter.live().map((x) => [x.index, x.server]));
    return {
      endS: usToSeconds(endUs),
      stopReason: reason,
      cutShort: reason !== 'duration',
      rows: this.meter.rows,
      rowsNotKept: this.meter.rowsNotKept,
      rejoins: this.live.wire.rejoins,
      // Every connection, in the order they opened: with --rejoin, a place has one per join.
      clients: this.live.places.served().map((c) => {
        const lastUs = this.lastServerUsOf.get(c.id);
        const server = byConnection.get(c.id);
        const first = server?.firstSeqRestart ?? null;
        return {
          client: c.client,
          connection: c.id,
          joinedAtS: c.joinedAtUs === null ? null : usToSeconds(c.joinedAtUs),
          state: c.peer.state,
          lastServerDatagramS: lastUs === undefined ? null : usToSeconds(lastUs),
          serverSeqRestarts: server?.seqRestarts ?? 0,
          firstServerSeqRestart:
            first === null ? null : { atS: usToSeconds(first.atUs), fromSeq: first.fromSeq, toSeq: first.toSeq },
        };
      }),
      wire: {
        sent: this.live.wire.sent,
        received: this.live.wire.received,
        lostOut: this.live.wire.lostOut,
        lostIn: this.live.wire.lostIn,
        unreadable: this.live.unreadable.figures().total,
      },
      silences: this.silences.map((s) => ({
        lastDatagramS: usToSeconds(s.lastUs),
        noticedS: usToSeconds(s.noticedUs),
        endedS: s.endedUs === null ? null : usToSeconds(s.endedUs),
        lastDatagrams: s.shown,
      })),
      silencesNotKept: this.silencesNotKept,
    };
  }
}
