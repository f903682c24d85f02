// The report's title says what the run found about the stock ACK-outbox,
// from the same leak verdicts as the findings, not the scenario's ambition.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

function titles(dir: string): { h1: string; title: string; md: string; doc: any } {
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  return {
    h1: html.match(/<h1>([^<]*)<\/h1>/)?.[1] ?? '',
    title: html.match(/<title>([^<]*)<\/title>/)?.[1] ?? '',
    md: readFileSync(join(dir, 'report.md'), 'utf8').split('\n')[0],
    doc: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')),
  };
}

describe('the report title', () => {
  it('long-session: the stock ACK-outbox stays bounded, and the title says so with its peak', () => {
    const { h1, title, md, doc } = titles('reports/long-session');
    const stock = doc.runs.stock.peers;
    const peak = Math.max(stock.server.ackOutbox.max, stock.client.ackOutbox.max);
    expect(doc.trends.stock.some((t: { leak: boolean }) => t.leak)).toBe(false);
    expect(doc.findings.join(' ')).toContain('bounded, not a leak');
    const expected = `long-session: the stock ACK-outbox stays bounded (peak ${peak} entries), no leak`;
    expect(h1).toBe(expected);
    expect(title).toBe(expected);
    expect(md).toBe(`# ${expected}`);
  });

  it('a stock column whose outbox leaks is titled so, with its growth per hour', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bcsim-headline-'));
    // The keepalive and its echo never open the gate, and nothing else does in a lobby: the outbox only grows.
    const stock =
      'stock:stock,keepalive.path=outside-queues,keepalive.echoPath=outside-queues,gateOpeners=["retransmits","first-sends"]';
    const r = await cli(['compare', 'lobby-idle', '--config', stock, '--config', 'fixed:fixed', '--out-dir', out]);
    expect(r.code).toBe(0);
    const { h1, md, doc } = titles(out);
    const leaks = doc.trends.stock.filter((t: { metric: string; leak: boolean }) => t.metric === 'ackOutbox' && t.leak);
    expect(leaks.length).toBeGreaterThan(0);
    expect(doc.findings.join(' ')).toContain('flagged as leaks');
    expect(h1).toMatch(/^lobby-idle: the stock ACK-outbox grows without bound \(\+[\d,.]+ entries\/h\)$/);
    expect(md).toBe(`# ${h1}`);
  });
});

describe('the opening of "What this shows"', () => {
  it('long-session: three plain sentences before the bullets, what ran, what stock and fixed did', () => {
    const html = readFileSync('reports/long-session/report.html', 'utf8');
    const { doc } = titles('reports/long-session');
    const section = html.slice(html.indexOf('<h2>What this shows</h2>'));
    const para = section.match(/^<h2>What this shows<\/h2>\n<p class="opening">([^<]*)<\/p>\n<ul>/)?.[1];
    expect(para, 'a paragraph right under the heading, before the list').toBeDefined();
    const sentences = (para as string).split(/(?<=\.) /);
    expect(sentences).toHaveLength(3);
    const peak = (run: string) =>
      Math.max(doc.runs[run].peers.server.ackOutbox.max, doc.runs[run].peers.client.ackOutbox.max);
    expect(sentences[0]).toBe(
      'bcsim simulated 4 h of long-session, a server and one client, twice on the same traffic: once with the transport as it ships (stock) and once with the fixes (fixed).',
    );
    expect(sentences[1]).toBe(
      `Stock's ACK-outbox reached at most ${peak('stock')} waiting acknowledgements and did not keep growing; it lost no reliable message.`,
    );
    expect(sentences[2]).toBe(
      `Fixed's ACK-outbox reached at most ${peak('fixed')} waiting acknowledgements and did not keep growing; it lost no reliable message.`,
    );
    const md = readFileSync('reports/long-session/report.md', 'utf8');
    expect(md).toContain(`## What this shows\n\n${para}\n\n- `);
  });
});
