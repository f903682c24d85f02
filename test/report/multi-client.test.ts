// Reports address every peer. A 3-client compare shows each
// connection's ACK-outbox peak beside the server total, charts the worst
// connection, and `run` prints a per-slot block; one-client output has none of it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetricsRecorder } from '../../src/model/metrics/recorder.js';
import { parseScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import type { Summary } from '../../src/model/session/summary.js';
import { cli } from '../support/cli.js';

const SCENARIO = {
  name: 'three-players',
  description: 'Three clients, two minutes of combat at the valentines calibration.',
  duration: '130s',
  seed: 7,
  clients: 3,
  traffic: {
    phases: [
      'join',
      { kind: 'combat', duration: '2m', stateUpdatesPerSecond: 16.33, reliablePerSecond: 1.015, clientShare: 0.305 },
      { kind: 'quiet', duration: '3s' },
    ],
  },
};

const dir = mkdtempSync(join(tmpdir(), 'bcsim-multi-client-'));
const file = join(dir, 'three-players.json');
writeFileSync(file, JSON.stringify(SCENARIO));

/** The cells of the terminal table's row whose label is exactly `label`. */
function tableRow(stdout: string, label: string): string[] | undefined {
  for (const line of stdout.split('\n')) {
    const cells = line.split('│').map((c) => c.trim());
    if (cells[1] === label) return cells.slice(2, -1);
  }
  return undefined;
}

/** The cells of report.md's row whose label is exactly `label`. */
function markdownRow(md: string, label: string): string[] | undefined {
  const line = md.split('\n').find((l) => l.startsWith(`| ${label} |`));
  return line
    ?.split('|')
    .slice(2, -1)
    .map((c) => c.trim());
}

describe('compare, three clients', async () => {
  const out = join(dir, 'report');
  const r = await cli(['compare', file, '--out-dir', out]);
  const doc = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  const runs = doc.runs as Record<'stock' | 'fixed', Summary>;
  const md = readFileSync(join(out, 'report.md'), 'utf8');
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  const csv = readFileSync(join(out, 'timeseries.csv'), 'utf8');
  const slots = Object.keys(runs.stock.peers.server.connections);

  it('runs three connections', () => {
    expect(r.code).toBe(0);
    expect(runs.stock.session.clients).toBe(3);
    expect(slots).toHaveLength(3);
  });

  it('the terminal table and report.md show each connection and the totals, server and client side, with the summary numbers', () => {
    const expected: Array<[string, (s: Summary) => number]> = [
      ['ACK-outbox peak (server total)', (s) => s.peers.server.ackOutbox.max],
      ['ACK-outbox peak (client total)', (s) => s.peers.client.ackOutbox.max],
      ...slots.map((slot): [string, (s: Summary) => number] => [
        `ACK-outbox peak, server connection slot ${slot}`,
        (s) => s.peers.server.connections[slot].ackOutbox.max,
      ]),
      ...slots.map((slot): [string, (s: Summary) => number] => [
        `ACK-outbox peak, client slot ${slot}`,
        (s) => s.peers.clients[slot].ackOutbox.max,
      ]),
    ];
    for (const [label, get] of expected) {
      const want = [String(get(runs.stock)), String(get(runs.fixed))];
      expect(tableRow(r.stdout, label), label).toEqual(want);
      expect(markdownRow(md, label), label).toEqual(want);
      expect(html).toContain(`<tr><td>${label}</td>`);
    }
    // The per-connection rows follow the totals' ACK-outbox pair.
    const labels = md.split('\n').filter((l) => l.startsWith('| ACK-outbox peak'));
    expect(labels.map((l) => l.split('|')[1].trim())).toEqual(expected.map(([label]) => label));
  });

  it('the verdicts and the findings name the server total and the per-connection peak', () => {
    const perConnection = (s: Summary) =>
      Math.max(
        ...[...Object.values(s.peers.server.connections), ...Object.values(s.peers.clients)].map(
          (c) => c.ackOutbox.max,
        ),
      );
    expect(r.stdout).toMatch(/^outbox, server total: fixed /m);
    expect(r.stdout).toContain(`vs ${perConnection(runs.stock)}) at most on any one connection`);
    const findings = doc.findings as string[];
    expect(findings[0]).toContain(
      `peaked at ${runs.stock.peers.server.ackOutbox.max} entries in the server's total over its connections`,
    );
    const per = findings.find((f) => f.startsWith('Per connection'));
    expect(per).toBeDefined();
    const serverPeaks = slots.map((slot) => runs.stock.peers.server.connections[slot].ackOutbox.max);
    expect(per).toContain(
      `the stock ACK-outbox peaked at ${serverPeaks.slice(0, -1).join(', ')} and ${serverPeaks.at(-1)} entries on the server's side`,
    );
    expect(per).toContain(
      `The server's total (${runs.stock.peers.server.ackOutbox.max} in stock, ${runs.fixed.peers.server.ackOutbox.max} in fixed)`,
    );
    expect(md).toContain(`- ${per}`);
  });

  it('charts the server total and the worst connection, the one whose server-side outbox peaked highest', () => {
    for (const mode of ['stock', 'fixed'] as const) {
      const summary = runs[mode];
      const worst = doc.worstConnections[mode];
      const peaks = slots.map((slot) => summary.peers.server.connections[slot].ackOutbox.max);
      expect(worst.serverAckOutboxMax).toBe(Math.max(...peaks));
      expect(summary.peers.server.connections[String(worst.slot)].ackOutbox.max).toBe(worst.serverAckOutboxMax);
      expect(summary.peers.server.connections[String(worst.slot)].client).toBe(worst.client);
      const charts = html.match(/<figure class="chart"[\s\S]*?<\/figure>/g) ?? [];
      expect(charts.length).toBeGreaterThan(0);
      for (const chart of charts) {
        expect(chart).toContain(`<title>${mode} server total</title>`);
        expect(chart).toContain(`<title>${mode} server, slot ${worst.slot} (worst)</title>`);
        expect(chart).toContain(`<title>${mode} client, slot ${worst.slot} (worst)</title>`);
        expect(chart).toContain(`${mode} (worst: slot ${worst.slot})`);
      }
      // timeseries.csv: the worst connection's two ends beside the totals; its outbox series stays within its exact peak.
      const rows = csv
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(','));
      const peers = new Set(rows.filter((x) => x[1] === mode).map((x) => x[2]));
      expect([...peers]).toEqual(['server', 'client', `server:slot${worst.slot}`, `client:slot${worst.slot}`]);
      const outbox = rows
        .filter((x) => x[1] === mode && x[2] === `server:slot${worst.slot}` && x[3] === 'ackOutbox')
        .map((x) => Number(x[4]));
      expect(outbox.length).toBe(130);
      expect(Math.max(...outbox)).toBeGreaterThan(0);
      expect(Math.max(...outbox)).toBeLessThanOrEqual(worst.serverAckOutboxMax);
    }
    expect(md).toContain('Each run also records its worst connection');
  });
});

describe('the recorder with several clients', () => {
  it('keeps the totals, as with one client, and the worst connection, whose series match that connection', () => {
    const scenario = parseScenario(JSON.stringify({ ...SCENARIO, duration: '40s' }), 'test');
    const recorder = new MetricsRecorder();
    const { summary } = runScenario(scenario, { preset: 'stock', observer: recorder });
    const run = recorder.recorded();
    expect(run.worst).not.toBeNull();
    const worst = run.worst!;
    const entry = Object.values(summary.peers.server.connections).find((c) => c.client === worst.client)!;
    expect(worst.ackOutboxMax).toBe(entry.ackOutbox.max);
    expect(worst.ackOutboxMax).toBe(
      Math.max(...Object.values(summary.peers.server.connections).map((c) => c.ackOutbox.max)),
    );
    // A connection's band reaches its exact peak (peaks between samples included), and the final sample is the final value.
    const points = worst.series.server.ackOutbox.points();
    expect(Math.max(...points.map((p) => p.max))).toBe(entry.ackOutbox.max);
    expect(points.at(-1)?.mean).toBe(entry.ackOutbox.final);
    // The totals are at least any one connection at every sample (one sample per bucket here: its mean).
    const total = run.series.server.ackOutbox.points();
    expect(total.length).toBe(points.length);
    total.forEach((p, i) => expect(p.mean).toBeGreaterThanOrEqual(points[i].mean));
  });

  it('records no connection with one client', () => {
    const scenario = parseScenario(JSON.stringify({ ...SCENARIO, clients: 1, duration: '10s' }), 'test');
    const recorder = new MetricsRecorder();
    runScenario(scenario, { preset: 'stock', observer: recorder });
    expect(recorder.recorded().worst).toBeNull();
  });
});

describe('run, three clients', async () => {
  const table = await cli(['run', file]);
  const json = await cli(['run', file, '--json']);
  const summary = JSON.parse(json.stdout) as Summary;

  it('prints the totals and a per-slot block of both ends', () => {
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ *│ server total *│ clients total *│/);
    expect(table.stdout).toContain('session: 3 clients, 3 connected');
    for (const [slot, server] of Object.entries(summary.peers.server.connections)) {
      const client = summary.peers.clients[slot];
      expect(tableRow(table.stdout, `slot ${slot} server`)).toEqual([
        `${server.ackOutbox.final} / ${server.ackOutbox.max}`,
        String(server.ackOutboxDeadZone.max),
        String(server.retransmitQueue.max),
        server.state,
      ]);
      expect(tableRow(table.stdout, `slot ${slot} client ${client.client}`)).toEqual([
        `${client.ackOutbox.final} / ${client.ackOutbox.max}`,
        String(client.ackOutboxDeadZone.max),
        String(client.retransmitQueue.max),
        client.state,
      ]);
    }
  });
});

describe('one client', async () => {
  const out = join(dir, 'one');
  const compare = await cli(['compare', 'fragment-ack-bug', '--duration', '20s', '--out-dir', out]);
  const run = await cli(['run', 'fragment-ack-bug', '--duration', '20s']);

  it('has no per-connection rows, totals, worst-connection series or per-slot block', () => {
    expect(compare.code).toBe(0);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const csv = readFileSync(join(out, 'timeseries.csv'), 'utf8');
    const doc = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    for (const text of [compare.stdout, md, html]) {
      expect(text).not.toMatch(/server connection slot|client slot|server total|client total|\(worst|worst connection/);
    }
    expect(tableRow(compare.stdout, 'ACK-outbox peak (server)')).toBeDefined();
    expect(compare.stdout).toMatch(/^outbox: fixed /m);
    expect(doc).not.toHaveProperty('worstConnections');
    expect(
      new Set(
        csv
          .trimEnd()
          .split('\n')
          .slice(1)
          .map((l) => l.split(',')[2]),
      ),
    ).toEqual(new Set(['server', 'client']));
    expect(html).toContain('solid = server, dashed = client.');
    expect(run.stdout).toMatch(/│ *│ server *│ client *│/);
    expect(run.stdout).not.toMatch(/session:|slot \d|all clients/);
  });
});
