// The dissector on a capture bcsim wrote: a datagram the simulated link
// dropped (its packet comment starts `DROPPED by link: <cause>`, or
// `DROPPED (<cause>)` from the proxy) is marked in the packet list and in
// its tree, and the expert info groups by kind: one summary per kind, so
// Wireshark's Expert Information lists "Fragment retransmission" once with
// its count instead of one row per retransmission.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { dissect, requireWireshark, tshark } from './tshark.js';
import type { TsharkOptions } from './tshark.js';

let work: string;
let options: TsharkOptions;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'bcsim-dissector-drops-'));
  options = { home: join(work, 'home') };
});

beforeEach(() => {
  requireWireshark();
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

async function capture(name: string, args: string[]): Promise<string> {
  const file = join(work, `${name}.pcapng`);
  const r = await cli(['run', ...args, '--pcap', file]);
  expect(r.code, r.stderr).toBe(0);
  return file;
}

/** Per frame: its comment (or ''), its Info column, and the bc.dropped / bc.dropped.cause fields. */
function rows(file: string): Array<{ comment: string; info: string; dropped: string; cause: string }> {
  const text = tshark(
    file,
    [
      '-T',
      'fields',
      '-E',
      'separator=/t',
      '-e',
      'frame.comment',
      '-e',
      '_ws.col.Info',
      '-e',
      'bc.dropped',
      '-e',
      'bc.dropped.cause',
    ],
    options,
  );
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const [comment, info, dropped, cause] = line.split('\t');
      return { comment, info, dropped, cause };
    });
}

describe('datagrams bcsim dropped', () => {
  it('are marked in the packet list (Info starts [DROPPED: cause]) and in the tree (bc.dropped, bc.dropped.cause)', async () => {
    const file = await capture('lossy', ['lossy-link', '--duration', '30s']);
    const all = rows(file);
    const dropped = all.filter((r) => r.comment.startsWith('DROPPED by link: '));
    // The fault fired: the capture has dropped datagrams to mark.
    expect(dropped.length).toBeGreaterThan(5);
    for (const r of all) {
      const cause = /^DROPPED by link: ([a-z]+)/.exec(r.comment)?.[1];
      if (cause === undefined) {
        expect(r.dropped, r.info).toBe('');
        expect(r.info).not.toContain('DROPPED');
      } else {
        expect(r.dropped).toBe('1');
        expect(r.cause).toBe(cause);
        expect(r.info).toMatch(new RegExp(`^\\[DROPPED: ${cause}\\] [CS]>[CS] peer=0x`));
      }
    }
    // Display filter for the packet list: exactly the commented ones.
    const filtered = tshark(file, ['-Y', 'bc.dropped', '-T', 'fields', '-e', 'frame.number'], options)
      .trim()
      .split('\n');
    expect(filtered.length).toBe(dropped.length);
  });

  it('one expert item per dropped datagram, grouped by cause', async () => {
    const file = await capture('lossy-experts', ['lossy-link', '--duration', '30s']);
    const frames = dissect(file, options);
    const experts = frames.flatMap((f) => f.bc!.experts.filter((e) => e.field === 'bc.dropped.expert'));
    const commented = rows(file).filter((r) => r.comment.startsWith('DROPPED')).length;
    expect(experts.length).toBe(commented);
    expect(new Set(experts.map((e) => e.message))).toEqual(new Set(["Dropped by bcsim's link: loss"]));
  });

  it('a run without drops has none marked', async () => {
    const file = await capture('clean', ['fragment-ack-bug', '--duration', '20s', '--set', 'link.both.loss=0']);
    expect(rows(file).filter((r) => r.dropped !== '' || r.info.includes('DROPPED'))).toEqual([]);
  });
});

describe('expert info grouped by kind', () => {
  it('each kind has one summary, whatever the seq, fragment or frame: the details are in the tree', async () => {
    const file = await capture('fragments', ['fragment-ack-bug', '--duration', '2m']);
    const text = tshark(file, ['-q', '-z', 'expert'], options);
    const summaries = text
      .split('\n')
      .map((line) => /^\s+(\d+)\s+(\w+)\s+BC\s+(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ count: Number(m[1]), group: m[2], summary: m[3] }));
    const fragment = summaries.filter((s) => s.summary.startsWith('Fragment retransmission'));
    // The run re-sends its 3 fragments dozens of times: one row counts them all.
    expect(fragment).toHaveLength(1);
    expect(fragment[0].summary).toBe('Fragment retransmission');
    expect(fragment[0].count).toBeGreaterThan(30);
    expect(summaries.filter((s) => s.summary.startsWith('ACK repeat'))).toHaveLength(1);
    expect(summaries.filter((s) => s.summary.startsWith('Dead-zone ACK'))).toHaveLength(1);
    // Every row is one of the kinds the dissector documents.
    const kinds = [
      'Fragment retransmission',
      'Reliable message retransmission',
      'ACK repeat',
      'Dead-zone ACK (pass 2)',
    ];
    for (const s of summaries) expect(kinds).toContain(s.summary);
    // The details stay in the tree, on the retransmission item.
    const frames = dissect(file, options);
    const marked = frames
      .flatMap((f) => f.bc!.messages)
      .filter((m) => m.fields['bc.retransmit.kind']?.[0] === 'fragment');
    expect(marked.length).toBe(fragment[0].count);
  });
});
