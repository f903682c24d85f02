// The charts reach the peaks the table shows. Series are sampled once a
// simulated second, so from the samples alone a queue that rose and fell
// between two of them would chart lower than the table's peak (modelled memory
// 4,169 in the table, ≈3,468 on such a chart). Each second's band reaches the
// highest value the figure took in that second: a gauge's peak, the most ACK
// bytes in one datagram, the most comparisons in one lookup.
import { describe, expect, it } from 'vitest';
import { MetricsRecorder } from '../../src/model/metrics/index.js';
import type { MetricName } from '../../src/model/metrics/index.js';
import { runComparison } from '../../src/analysis/report/compare.js';
import { reportHtml } from '../../src/analysis/report/html.js';
import { figureOf, runScenario } from '../../src/model/session/index.js';
import type { PeerSummary } from '../../src/model/session/index.js';
import type { FigureRef } from '../../src/model/session/index.js';
import { loadScenario } from '../../src/model/scenario/load.js';

/** Each charted figure whose table row is a peak, and that row's figure. */
const PEAKS: ReadonlyArray<[MetricName, FigureRef]> = [
  ['ackOutbox', 'ackOutbox.max'],
  ['ackOutboxDeadZone', 'ackOutboxDeadZone.max'],
  ['retransmitQueue', 'retransmitQueue.max'],
  ['memoryBytes', 'memoryBytes.max'],
  ['ackBytesPerPacket', 'ackBytesPerPacketMax'],
  ['dedupPerMessage', 'dedupComparisonsMaxPerMessage'],
];

function chartTop(recorder: MetricsRecorder, peer: 'server' | 'client', metric: MetricName): number {
  return Math.max(...recorder.series[peer][metric].points().map((p) => p.max));
}

describe('the charted series reach the peaks of the table', () => {
  it.each(['stock', 'fixed'] as const)(
    'lossy-link, %s: every peak row, both ends (the run peaks between samples)',
    (preset) => {
      const recorder = new MetricsRecorder();
      const { summary } = runScenario(loadScenario('lossy-link'), {
        preset,
        durationUs: 120_000_000,
        observer: recorder,
      });
      let betweenSamples = 0;
      for (const peer of ['server', 'client'] as const) {
        const p: PeerSummary = summary.peers[peer];
        for (const [metric, ref] of PEAKS) {
          expect(chartTop(recorder, peer, metric), `${peer} ${metric}`).toBe(figureOf(p, ref));
          // The bucket means are the once-a-second samples: their top is below the peak when it fell between two.
          if (Math.max(...recorder.series[peer][metric].points().map((b) => b.mean)) < figureOf(p, ref))
            betweenSamples++;
        }
      }
      // The case this is about happened: some peaks fell between two samples.
      expect(betweenSamples).toBeGreaterThan(0);
    },
  );

  it('server-8: the worst connection’s two ends reach their peaks too', () => {
    const recorder = new MetricsRecorder();
    const { summary } = runScenario(loadScenario('server-8'), {
      preset: 'stock',
      durationUs: 120_000_000,
      observer: recorder,
    });
    const worst = recorder.worstConnection();
    if (worst === null) throw new Error('server-8 has several clients');
    const slot = Object.entries(summary.peers.server.connections).find(([, c]) => c.client === worst.client)?.[0];
    const ends = {
      server: summary.peers.server.connections[slot as string],
      client: summary.peers.clients[slot as string],
    };
    for (const peer of ['server', 'client'] as const) {
      for (const [metric, ref] of PEAKS) {
        const top = Math.max(...worst.series[peer][metric].points().map((p) => p.max));
        expect(top, `${peer} ${metric}`).toBe(figureOf(ends[peer] as unknown as PeerSummary, ref));
      }
    }
  });
});

describe('report.html', () => {
  const comparison = runComparison(loadScenario('lossy-link'), { durationUs: 120_000_000 });
  const html = reportHtml(comparison);

  it('the memory chart’s band reaches the table’s peak: its y axis and its band top', () => {
    const svg = /<figure class="chart" data-metric="memoryBytes">(.*?)<\/figure>/s.exec(html)?.[1] ?? '';
    // Map pixels to values from the first and last y-axis ticks.
    const ticks = [
      ...svg.matchAll(/<text x="\d+(?:\.\d+)?" y="([\d.]+)" text-anchor="end" class="tick">([\d,]+)<\/text>/g),
    ].map((m) => ({ y: Number(m[1]) - 4, v: Number(m[2].replace(/,/g, '')) }));
    const [zero, top] = [ticks[0], ticks[ticks.length - 1]];
    const valueAt = (y: number) => zero.v + ((zero.y - y) / (zero.y - top.y)) * (top.v - zero.v);
    // The highest point drawn, band or line (a series whose every bucket holds one sample has no band).
    const drawn = [...svg.matchAll(/<(?:polygon|polyline) points="([^"]+)"/g)].flatMap((m) =>
      m[1].split(' ').map((pt) => Number(pt.split(',')[1])),
    );
    const highest = valueAt(Math.min(...drawn));
    const peak = Math.max(
      ...comparison.runs.flatMap((r) => [
        r.summary.peers.server.memoryBytes.max,
        r.summary.peers.client.memoryBytes.max,
      ]),
    );
    // Within the chart's rounding of pixels to 0.1.
    expect(Math.abs(highest - peak)).toBeLessThan((top.v - zero.v) / 176 / 10 + 1);
  });

  it('each chart says what its line and band are', () => {
    const captions = new Map(
      [...html.matchAll(/<figure class="chart" data-metric="(\w+)">.*?<figcaption>([^<]*)<\/figcaption>/gs)].map(
        (m) => [m[1], m[2]],
      ),
    );
    expect(captions.size).toBeGreaterThan(10);
    for (const c of captions.values()) expect(c).toMatch(/second/);
    expect(captions.get('memoryBytes')).toMatch(
      /^Sampled once a simulated second, .* the band from the lowest sample to the highest value reached \(between samples too\)/,
    );
    expect(captions.get('ackBytesPerPacket')).toMatch(/the highest value in one datagram/);
    expect(captions.get('dedupPerMessage')).toMatch(/the highest value in one lookup/);
  });
});
