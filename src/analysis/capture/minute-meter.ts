// Per-minute figures of each connection, from the wire alone, while the
// datagrams still arrive: a soak's time series. A WireAnalyzer reads every
// datagram; at each minute's end the meter takes its live figures (read-only)
// and keeps the minute's difference. The same meter reads a live session and a
// simulated one, so the two series are computed the same way.
import { usToMs, usToSeconds } from '../../core/engine/index.js';
import type { Role } from '../../model/transport/index.js';
import { WireAnalyzer, latencyQuantileMs } from './analyze.js';
import type { AckBehaviourName, AnalyzerOptions, LiveConnection } from './analyze.js';
import type { CaptureConnection } from './bc-packets.js';

export const MINUTE_US = 60_000_000;
/** Rows kept (16 connections for 24 h is 23,040); later ones are counted, not kept. */
export const MAX_MINUTE_ROWS = 32_768;

export interface MinuteRow {
  /** The minute's start, s from the session's start; `partial` when the session ended inside it. */
  readonly startS: number;
  readonly seconds: number;
  readonly connection: number;
  /** The server's ACK behaviour as its wire shows it so far, and its ACK-outbox estimate at the minute's end. */
  readonly serverAckBehaviour: AckBehaviourName;
  readonly serverAckOutbox: number | null;
  /** Its entries at 3 to 8 sends, when it is two-pass; null otherwise. */
  readonly serverDeadZone: number | null;
  /** The largest estimate and dead zone during the minute, under that behaviour. */
  readonly serverAckOutboxPeak: number | null;
  readonly serverDeadZonePeak: number | null;
  /** The server's repeated ACKs of transmissions the client no longer had outstanding, this minute. */
  readonly staleAcks: number;
  /** ACK bytes per server datagram this minute (null without one). */
  readonly ackBytesPerDatagram: number | null;
  /** The server's re-sent reliable messages and fragments this minute. */
  readonly serverResends: number;
  /** The longest stretch without a datagram from the server that ended (or was still open) in this minute, ms. */
  readonly longestServerGapMs: number | null;
  /** The client's own messages given up this minute (its transport's count: the wire cannot show it). */
  readonly givenUp: number;
  /** The server's ACKs of the client's transmissions this minute: how long after the transmission, ms. */
  readonly ackLatencyMs: { readonly p50: number; readonly p90: number; readonly p99: number } | null;
  readonly datagramsPerS: { readonly clientToServer: number; readonly serverToClient: number };
  readonly bytesPerS: { readonly clientToServer: number; readonly serverToClient: number };
  readonly serverBoots: number;
  readonly serverDisconnects: number;
}

interface Before {
  readonly live: LiveConnection;
  readonly latency: Uint32Array;
  readonly givenUp: number;
}

interface Gaps {
  lastServerUs: number;
  longestUs: number;
}

/** The server's estimate under each behaviour, its largest value this minute. */
interface Peaks {
  out1: number;
  out3: number;
  out9: number;
  dead9: number;
}

export class MinuteMeter {
  readonly rows: MinuteRow[] = [];
  rowsNotKept = 0;
  private readonly analyzer: WireAnalyzer;
  private readonly connections = new Map<number, CaptureConnection>();
  private readonly before = new Map<number, Before>();
  private readonly gaps = new Map<number, Gaps>();
  private readonly peaks = new Map<number, Peaks>();
  /** When each ended connection ended: its last row is the minute it ended in. */
  private readonly endedUs = new Map<number, number>();
  private minuteEndUs = MINUTE_US;
  private lastUs = 0;

  constructor(
    /** The client side's own messages given up so far, on connection `connection`. */
    private readonly givenUpSoFar: (connection: number) => number,
    options: AnalyzerOptions = {},
  ) {
    this.analyzer = new WireAnalyzer(options);
  }

  /** One datagram on the wire (plaintext), sent by `from` on `connection` at `timeUs` from the session's start. */
  add(connection: number, from: Role, timeUs: number, bytes: Uint8Array, wireLength = bytes.length): void {
    this.until(timeUs);
    let c = this.connections.get(connection);
    if (c === undefined) {
      c = {
        index: connection,
        server: { key: 0, ip: 0, port: 0, label: 'server' },
        client: { key: connection, ip: 0, port: 0, label: `client ${connection}` },
        slot: null,
        startSeen: true,
        firstUs: timeUs,
        lastUs: timeUs,
      };
      this.connections.set(connection, c);
      this.gaps.set(connection, { lastServerUs: timeUs, longestUs: 0 });
      this.peaks.set(connection, { out1: 0, out3: 0, out9: 0, dead9: 0 });
    }
    if (timeUs > c.lastUs) c.lastUs = timeUs;
    if (timeUs > this.lastUs) this.lastUs = timeUs;
    if (from === 'server') {
      const g = this.gaps.get(connection) as Gaps;
      g.longestUs = Math.max(g.longestUs, timeUs - g.lastServerUs);
      g.lastServerUs = timeUs;
    }
    this.analyzer.add(c, from, timeUs, wireLength, bytes);
    if (from === 'server') {
      const now = this.analyzer.serverOutboxNow(c);
      const p = this.peaks.get(connection) as Peaks;
      if (now !== null) {
        p.out1 = Math.max(p.out1, now.out1);
        p.out3 = Math.max(p.out3, now.out3);
        p.out9 = Math.max(p.out9, now.out9);
        p.dead9 = Math.max(p.dead9, now.dead9);
      }
    }
  }

  /** Closes every minute that ended at or before `nowUs` (a live session calls it on a timer, so silence is seen). */
  until(nowUs: number): void {
    while (nowUs >= this.minuteEndUs) {
      this.close(this.minuteEndUs, MINUTE_US);
      this.minuteEndUs += MINUTE_US;
    }
  }

  /** The session ended at `endUs`: the minute it ended in is closed as a partial one. */
  finish(endUs: number): void {
    this.until(endUs);
    const startUs = this.minuteEndUs - MINUTE_US;
    if (endUs > startUs) this.close(endUs, endUs - startUs);
  }

  /** Connection `connection` ended at `atUs` (timed out, removed, closed): no rows after its minute. */
  end(connection: number, atUs: number): void {
    if (!this.endedUs.has(connection)) this.endedUs.set(connection, atUs);
  }

  /** The current figures of each connection (read-only), for a progress line. */
  live(): LiveConnection[] {
    return this.analyzer.live();
  }

  private close(endUs: number, lengthUs: number): void {
    const seconds = usToSeconds(lengthUs);
    const startUs = endUs - lengthUs;
    for (const now of this.analyzer.live()) {
      const id = now.index;
      const endedUs = this.endedUs.get(id);
      if (endedUs !== undefined && endedUs <= startUs) continue;
      const before = this.before.get(id);
      const g = this.gaps.get(id) as Gaps;
      // An ended connection's gap stops at its end: the server owed it nothing after.
      const openGapUs = Math.min(endUs, endedUs ?? endUs) - g.lastServerUs;
      const longestUs = Math.max(g.longestUs, openGapUs);
      g.longestUs = 0;
      const givenUp = this.givenUpSoFar(id);
      const s = now.server;
      const diff = (f: (l: LiveConnection) => number) => f(now) - (before === undefined ? 0 : f(before.live));
      const serverDatagrams = diff((l) => l.server.datagrams);
      const q = (p: number) => latencyQuantileMs(s.ackLatencyCounts, before?.latency ?? null, p);
      const p50 = q(0.5);
      const peaks = this.peaks.get(id) as Peaks;
      const rule = s.ackBehaviour;
      const outboxPeak =
        rule === 'two-pass'
          ? peaks.out9
          : rule === 'single-pass'
            ? peaks.out3
            : rule === 'immediate'
              ? peaks.out1
              : null;
      const row: MinuteRow = {
        startS: usToSeconds(endUs - lengthUs),
        seconds,
        connection: id,
        serverAckBehaviour: s.ackBehaviour,
        serverAckOutbox: s.ackOutbox,
        serverDeadZone: s.deadZone,
        // The minute's peaks start from its end value: a minute without a server datagram keeps it.
        serverAckOutboxPeak: outboxPeak === null ? null : Math.max(outboxPeak, s.ackOutbox ?? 0),
        serverDeadZonePeak: rule === 'two-pass' ? Math.max(peaks.dead9, s.deadZone ?? 0) : null,
        staleAcks: diff((l) => l.server.staleAcks),
        ackBytesPerDatagram: serverDatagrams === 0 ? null : diff((l) => l.server.ackBytes) / serverDatagrams,
        serverResends: diff((l) => l.server.retransmissions),
        longestServerGapMs: usToMs(longestUs),
        givenUp: givenUp - (before?.givenUp ?? 0),
        ackLatencyMs: p50 === null ? null : { p50, p90: q(0.9) ?? p50, p99: q(0.99) ?? p50 },
        datagramsPerS: {
          clientToServer: diff((l) => l.client.datagrams) / seconds,
          serverToClient: serverDatagrams / seconds,
        },
        bytesPerS: {
          clientToServer: diff((l) => l.client.bytes) / seconds,
          serverToClient: diff((l) => l.server.bytes) / seconds,
        },
        serverBoots: diff((l) => l.server.boots),
        serverDisconnects: diff((l) => l.server.disconnects),
      };
      if (this.rows.length < MAX_MINUTE_ROWS) this.rows.push(row);
      else this.rowsNotKept++;
      this.before.set(id, { live: now, latency: s.ackLatencyCounts.slice(), givenUp });
      const o = this.analyzer.serverOutboxNow(this.connections.get(id) as CaptureConnection);
      this.peaks.set(id, o ?? { out1: 0, out3: 0, out9: 0, dead9: 0 });
    }
  }
}
