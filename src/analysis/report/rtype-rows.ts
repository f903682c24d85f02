// What `compare rtype-deaths` reports per preset: the table's
// rows and the findings in numbers. Shared by the terminal, report.md and report.html.
import type { RtypePresetRun, RtypeComparison } from '../../rtype/schemes/index.js';
import { rtypeMemory } from '../../rtype/schemes/index.js';
import type { RtypeSummary } from '../../rtype/session/index.js';
import { fmt } from '../../core/output/index.js';
import type { RowGroup } from './scheme-tables.js';

const pct = (part: number, whole: number) => (whole === 0 ? '–' : `${fmt((100 * part) / whole, 4)} %`);
const slash = (...values: number[]) => values.map((v) => fmt(v)).join(' / ');
const s = (run: RtypePresetRun) => run.summary;

export const RTYPE_ROW_GROUPS: readonly RowGroup<RtypePresetRun>[] = [
  {
    title: 'Deaths (critical packets)',
    rows: [
      { label: 'deaths queued', cell: (r) => fmt(s(r).deaths.queued) },
      { label: 'deaths × clients due', cell: (r) => fmt(s(r).deaths.pairs) },
      {
        label: 'delivered',
        cell: (r) => `${fmt(s(r).deaths.delivered)} (${pct(s(r).deaths.delivered, s(r).deaths.pairs)})`,
      },
      { label: 'lost: reported / silent', cell: (r) => slash(s(r).deaths.reportedLost, s(r).deaths.unreportedLost) },
      { label: 'in flight at the end', cell: (r) => fmt(s(r).deaths.inFlight) },
      {
        label: 'delivered per client',
        cell: (r) =>
          s(r)
            .deaths.perClient.map((c) => fmt(c.delivered))
            .join(', '),
      },
      {
        label: 'lost per client',
        cell: (r) =>
          s(r)
            .deaths.perClient.map((c) => fmt(c.lost))
            .join(', '),
      },
      { label: 'duplicate copies at clients', cell: (r) => fmt(s(r).deaths.duplicates + s(r).deaths.extraneous) },
      {
        label: 'latency p50 / p99 / max (ms)',
        cell: (r) => slash(s(r).deaths.latencyMs.p50, s(r).deaths.latencyMs.p99, s(r).deaths.latencyMs.max),
      },
    ],
  },
  {
    title: 'Resends (the k² storm)',
    rows: [
      { label: 'death datagrams the downlinks dropped', cell: (r) => fmt(s(r).wire.criticalDropped) },
      { label: 'resend datagrams', cell: (r) => fmt(s(r).resends.datagrams) },
      { label: 'beyond one per frame per waiting pair', cell: (r) => fmt(s(r).resends.excess) },
      { label: 'most resends in one frame', cell: (r) => fmt(s(r).resends.maxPerFrame) },
      { label: 'most sendPacket calls, one user, one frame', cell: (r) => fmt(s(r).resends.maxCallsPerUserPerFrame) },
      {
        label: 'frames with a resend',
        cell: (r) =>
          fmt(
            s(r)
              .resends.histogram.slice(1)
              .reduce((n, b) => n + b.frames, 0),
          ),
      },
    ],
  },
  {
    title: 'Confirmations',
    rows: [
      {
        label: 'received: TCP / UDP / registration',
        cell: (r) =>
          slash(
            s(r).confirmations.received.tcp,
            s(r).confirmations.received.udp,
            s(r).confirmations.received.registration,
          ),
      },
      { label: "cleared the sender's own entry", cell: (r) => fmt(s(r).confirmations.matched) },
      { label: "cleared other clients' entries", cell: (r) => fmt(s(r).confirmations.clearedForOthers) },
      { label: 'not attributable to a user', cell: (r) => fmt(s(r).confirmations.unattributed.total) },
    ],
  },
  {
    title: 'Store and pending lists',
    rows: [
      { label: 'store packets: peak / final', cell: (r) => slash(s(r).store.peak, s(r).store.final) },
      {
        label: 'pending entries, all users: peak / final',
        cell: (r) => slash(s(r).pending.peakTotal, s(r).pending.finalTotal),
      },
      {
        label: 'pending entries, one user: peak / final',
        cell: (r) => slash(s(r).pending.peakMaxPerUser, s(r).pending.finalMaxPerUser),
      },
      {
        label: 'dangling entries: peak / final',
        cell: (r) => slash(s(r).pending.danglingPeak, s(r).pending.danglingFinal),
      },
      { label: 'packets expired', cell: (r) => fmt(s(r).store.expiredPackets) },
      { label: 'server memory, modelled: peak (B)', cell: (r) => fmt(rtypeMemory(s(r)).peak) },
    ],
  },
  {
    title: 'Wire (R-Type bytes, no IP/UDP/TCP headers)',
    rows: [
      {
        label: 'UDP server→client: datagrams / bytes',
        cell: (r) => slash(s(r).wire.udpServerToClient.datagrams, s(r).wire.udpServerToClient.bytes),
      },
      {
        label: 'UDP client→server: datagrams / bytes',
        cell: (r) => slash(s(r).wire.udpClientToServer.datagrams, s(r).wire.udpClientToServer.bytes),
      },
      {
        label: 'TCP confirmations: messages / bytes',
        cell: (r) => slash(s(r).wire.tcpClientToServer.datagrams, s(r).wire.tcpClientToServer.bytes),
      },
      {
        label: 'server datagrams: death / resend / position',
        cell: (r) =>
          slash(
            s(r).wire.serverDatagrams.critical,
            s(r).wire.serverDatagrams.resend,
            s(r).wire.serverDatagrams.position,
          ),
      },
    ],
  },
  {
    title: 'Game loop (30 Hz)',
    rows: [
      {
        label: 'frames / ticks / overrun frames',
        cell: (r) => slash(s(r).clock.frames, s(r).clock.ticks, s(r).clock.overrunFrames),
      },
      { label: 'trace hash', cell: (r) => s(r).traceHash.slice(0, 16) },
    ],
  },
];

/** The findings in numbers, one sentence each. */
export function rtypeFindings(comparison: RtypeComparison): string[] {
  const runs = comparison.runs;
  const each = (f: (x: RtypeSummary) => string) => runs.map((r) => `${r.preset} ${f(r.summary)}`).join(', ');
  const out = runs.map((r) => {
    const d = r.summary.deaths;
    return `${r.preset} delivers ${fmt(d.delivered)} of ${fmt(d.pairs)} deaths × clients (${pct(d.delivered, d.pairs)}) and loses ${fmt(d.lost)} (${fmt(d.reportedLost)} reported, ${fmt(d.unreportedLost)} silently); ${fmt(d.inFlight)} still in flight at the end.`;
  });
  for (const r of runs) {
    const x = r.summary;
    if (x.resends.datagrams === 0 && x.wire.criticalDropped > 0)
      out.push(
        `${r.preset} never re-sends: 0 resends although the downlinks dropped ${fmt(x.wire.criticalDropped)} death datagrams.`,
      );
    if (x.resends.excess > 0)
      out.push(
        `${r.preset} re-sends ${fmt(x.resends.excess)} datagrams beyond one per frame per (client, packet) it waits on, up to ${fmt(x.resends.maxPerFrame)} in one frame: a resend storm.`,
      );
    if (x.pending.danglingFinal > 0)
      out.push(
        `${r.preset} ends with ${fmt(x.pending.danglingFinal)} pending entries pointing at expired packets: lists that only grow.`,
      );
    if (x.confirmations.clearedForOthers > 0)
      out.push(
        `In ${r.preset}, one client's confirmation cleared another client's entry ${fmt(x.confirmations.clearedForOthers)} times.`,
      );
  }
  out.push(
    `Resend datagrams: ${each((x) => (x.resends.datagrams === 0 ? '0' : `${fmt(x.resends.datagrams)} (at most ${fmt(x.resends.maxPerFrame)} in a frame)`))}; duplicate copies at clients: ${each((x) => fmt(x.deaths.duplicates + x.deaths.extraneous))}.`,
  );
  out.push(`Delivery latency p99: ${each((x) => `${fmt(x.deaths.latencyMs.p99)} ms`)}.`);
  out.push(`Confirmations not attributable to a user: ${each((x) => fmt(x.confirmations.unattributed.total))}.`);
  out.push(
    `Store peak: ${each((x) => `${fmt(x.store.peak)} packets`)}; pending entries peak (all users): ${each((x) => fmt(x.pending.peakTotal))}.`,
  );
  out.push(
    `Bytes on the wire (UDP both ways + TCP): ${each((x) => fmt(x.wire.udpServerToClient.bytes + x.wire.udpClientToServer.bytes + x.wire.tcpClientToServer.bytes))}.`,
  );
  return out;
}
