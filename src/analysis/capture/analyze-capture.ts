// `bcsim analyze FILE`: a capture read from end to end (streaming), every BC
// datagram fed to the WireAnalyzer, and the packet census beside the figures.
import { usToMs, usToSeconds } from '../../core/engine/index.js';
import { scanCapture } from './bc-packets.js';
import type { ScanStats } from './bc-packets.js';
import type { CaptureError, CaptureFormat } from '../../core/pcap/index.js';
import { ANALYSIS_SCHEMA, WireAnalyzer } from './analyze.js';
import type { AnalyzerOptions, WireAnalysis } from './analyze.js';

/** The packet census of `bcsim analyze`: the scan's counts, with the clock's jumps in seconds. */
export interface PacketCensus
  extends Pick<
    ScanStats,
    | 'udp'
    | 'bc'
    | 'encrypted'
    | 'plaintext'
    | 'gamespy'
    | 'tooShort'
    | 'other'
    | 'skipped'
    | 'roleConflicts'
    | 'outOfOrder'
  > {
  /** Packets (records, packet blocks) in the file. */
  read: number;
  /** Packets far from the one before them (packet-timeline.ts), the first few by packet number. */
  clockJumps: { count: number; listed: Array<{ packet: number; gapS: number }> };
}

interface CaptureSource {
  kind: 'capture';
  file: string;
  format: CaptureFormat | null;
  sizeBytes: number;
  /** ISO time of the origin of relative times (the whole second of the first packet). */
  origin: string | null;
  /** Relative time (s) of the first packet. */
  firstPacketS: number | null;
  /** False when reading stopped at `error`. */
  complete: boolean;
  error: CaptureError | null;
}

export interface CaptureAnalysis extends WireAnalysis {
  schema: typeof ANALYSIS_SCHEMA;
  source: CaptureSource;
  packets: PacketCensus;
}

export type CaptureAnalysisResult =
  | { readonly ok: true; readonly analysis: CaptureAnalysis }
  | { readonly ok: false; readonly error: CaptureError };

/** Reads and analyses a capture. Fails only when the file is not a capture at all. */
export function analyzeCapture(path: string, options: AnalyzerOptions = {}): CaptureAnalysisResult {
  const analyzer = new WireAnalyzer(options);
  const scanned = scanCapture(path, {
    // A datagram read only in a reimplementation's form (docs/sources.md 30) is measured in its stock form.
    onDatagram: (d) =>
      analyzer.add(
        d.connection,
        d.from,
        d.timeUs,
        d.wire.length,
        d.stock,
        d.stock.length,
        d.stock === d.plain ? undefined : d.dialect().deviations,
      ),
  });
  if (!scanned.ok) return scanned;
  const stats = scanned.stats;
  const wire = analyzer.finish(stats.endUs);
  return {
    ok: true,
    analysis: {
      schema: ANALYSIS_SCHEMA,
      source: captureSource(stats),
      packets: census(stats),
      ...wire,
    },
  };
}

function captureSource(stats: ScanStats): CaptureSource {
  return {
    kind: 'capture',
    file: stats.file,
    format: stats.format,
    sizeBytes: stats.sizeBytes,
    origin: stats.firstPacketUs === null ? null : isoTime(stats.originUs),
    firstPacketS: stats.firstPacketUs === null ? null : usToSeconds(stats.firstPacketUs - stats.originUs),
    complete: stats.error === null,
    error: stats.error,
  };
}

export function census(stats: ScanStats): PacketCensus {
  return {
    read: stats.packets,
    udp: stats.udp,
    bc: stats.bc,
    encrypted: stats.encrypted,
    plaintext: stats.plaintext,
    gamespy: { ...stats.gamespy },
    tooShort: stats.tooShort,
    other: { ...stats.other },
    skipped: { ...stats.skipped },
    roleConflicts: stats.roleConflicts,
    outOfOrder: stats.outOfOrder,
    clockJumps: {
      count: stats.timeline.jumps.count,
      listed: stats.timeline.jumps.listed.map((j) => ({ packet: j.packet, gapS: usToSeconds(j.gapUs) })),
    },
  };
}

/** ISO 8601 of a capture's time: the reader keeps it within 0..2^53 − 1 µs after 1970, all in Date's range. */
export function isoTime(us: number): string {
  return new Date(usToMs(us)).toISOString(); // the capture's own timestamp, formatted; no clock is read
}

/** "12 packets: 10 BC datagrams (10 encrypted), 1 GameSpy, 1 skipped (not IPv4)": the one-line census. */
export function censusLine(p: PacketCensus): string {
  const parts = [`${p.read} packets`, `${p.bc} BC datagrams (${p.encrypted} encrypted, ${p.plaintext} plaintext)`];
  parts.push(
    `${p.gamespy.queries + p.gamespy.responses} GameSpy (${p.gamespy.queries} queries, ${p.gamespy.responses} responses)`,
  );
  parts.push(`${p.tooShort} too short (< 2 bytes)`);
  const other = Object.entries(p.other);
  parts.push(`${sum(other)} other UDP${other.length ? ` (${other.map(([k, n]) => `${n} ${k}`).join(', ')})` : ''}`);
  const skipped = Object.entries(p.skipped);
  parts.push(`${sum(skipped)} skipped${skipped.length ? ` (${skipped.map(([k, n]) => `${n} ${k}`).join(', ')})` : ''}`);
  if (p.roleConflicts > 0) parts.push(`${p.roleConflicts} with a peer id against their side`);
  if (p.outOfOrder > 0) parts.push(`${p.outOfOrder} out of time order`);
  if (p.clockJumps.count > 0) parts.push(clockJumpText(p.clockJumps));
  return parts.join(', ');
}

/** "clock jumps 2 times (+1,000,000,000 s at packet 3; -1,000,000,000 s at packet 4)". */
function clockJumpText({ count, listed }: PacketCensus['clockJumps']): string {
  const jumps = listed.map(
    (j) => `${j.gapS > 0 ? '+' : '-'}${Math.round(Math.abs(j.gapS)).toLocaleString('en-US')} s at packet ${j.packet}`,
  );
  const more = count > listed.length ? `; ${count - listed.length} more` : '';
  return `clock jumps ${count === 1 ? 'once' : `${count} times`} (${jumps.join('; ')}${more})`;
}

function sum(entries: Array<[string, number]>): number {
  return entries.reduce((a, [, n]) => a + n, 0);
}
