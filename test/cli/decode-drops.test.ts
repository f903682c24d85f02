// `decode --pcap` on a capture bcsim wrote shows which datagrams its link
// dropped (their packet comments say so) with a DROP line after the send, as
// the trace does; and the client's connect request (type byte 0x03, as
// captured) has one name, `connect`, in the text and in the JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droppedCauseOf } from '../../src/analysis/capture/index.js';
import { openCapture } from '../../src/core/pcap/index.js';
import { cli } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-decode-drops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lossy = join(dir, 'lossy.pcapng');
beforeAll(async () => {
  const r = await cli(['run', 'lossy-link', '--duration', '30s', '--pcap', lossy]);
  expect(r.code, r.stderr).toBe(0);
});

function droppedComments(file: string): number {
  const opened = openCapture(file, { comments: true });
  if (!opened.ok) throw new Error(opened.error.reason);
  let n = 0;
  for (let step = opened.reader.next(); step.kind !== 'end'; step = opened.reader.next()) {
    if (step.kind === 'packet' && step.packet.comment?.startsWith('DROPPED by link: ')) n++;
  }
  opened.reader.close();
  return n;
}

describe('decode --pcap and the datagrams bcsim dropped', () => {
  it('a DROP line follows each dropped send, as in the trace of the same run', async () => {
    const decoded = await cli(['decode', lossy]);
    expect(decoded.code, decoded.stderr).toBe(0);
    const trace = await cli(['trace', 'lossy-link', '--until', '30s', '--bytes', 'full']);
    const drops = (text: string) => text.split('\n').filter((l) => / DROP\(/.test(l));
    // The fault fired: there are drops to show.
    expect(drops(trace.stdout).length).toBeGreaterThan(5);
    expect(drops(decoded.stdout)).toEqual(drops(trace.stdout));
    expect(drops(decoded.stdout).length).toBe(droppedComments(lossy));
    // Each DROP line follows the send line of the same datagram.
    const lines = decoded.stdout.split('\n');
    lines.forEach((line, i) => {
      if (!/ DROP\(/.test(line)) return;
      const bytes = (l: string) => l.slice(l.lastIndexOf(' | '));
      expect(lines[i - 1]).toMatch(/ send /);
      expect(bytes(lines[i - 1])).toBe(bytes(line));
    });
    expect(decoded.stdout).toMatch(
      new RegExp(
        `# \\d+ BC datagrams shown · ${drops(trace.stdout).length} dropped by bcsim \\(DROP lines, from the packet comments\\) · `,
      ),
    );
  });

  it('--json: a drop event with its cause and packet number after the send', async () => {
    const r = await cli(['decode', lossy, '--json']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; packet: number; cause?: string });
    const drops = events.filter((e) => e.event === 'drop');
    expect(drops.length).toBe(droppedComments(lossy));
    for (const d of drops) {
      expect(d.cause).toBe('loss');
      const i = events.indexOf(d);
      expect(events[i - 1]).toMatchObject({ event: 'send', packet: d.packet });
    }
  });

  it('a capture with no drops has no DROP line', async () => {
    const clean = join(dir, 'clean.pcapng');
    expect(
      (await cli(['run', 'fragment-ack-bug', '--duration', '20s', '--set', 'link.both.loss=0', '--pcap', clean])).code,
    ).toBe(0);
    const r = await cli(['decode', clean]);
    expect(r.stdout).not.toMatch(/DROP|dropped by bcsim/);
  });

  it("reads the run's comment and the proxy's", () => {
    expect(droppedCauseOf('DROPPED by link: loss | ack seq=7')).toBe('loss');
    expect(droppedCauseOf('DROPPED by link: outage')).toBe('outage');
    expect(droppedCauseOf('DROPPED (queue)')).toBe('queue');
    expect(droppedCauseOf('REWRITTEN by link rule: removed #2 ack seq=3 | game unreliable')).toBeNull();
    expect(droppedCauseOf('game reliable seq=2')).toBeNull();
    expect(droppedCauseOf(null)).toBeNull();
  });
});

describe("the client's connect request has one name", () => {
  const CLIENT_CONNECT = 'FF 01 03 0F C0 00 00 FF 54 B1 7C 00 4F B3 58 0B BE';

  it('decode HEX: connect in the text and in the JSON', async () => {
    const text = await cli(['decode', '--plain', CLIENT_CONNECT]);
    expect(text.stdout).toContain('connect (type 0x03 as captured)');
    const json = await cli(['decode', '--plain', CLIENT_CONNECT, '--json']);
    expect(JSON.parse(json.stdout).messages[0]).toMatchObject({ type: 3, name: 'connect' });
  });

  it('decode --pcap --json and trace --json: connect from the client, connectAck from the server', async () => {
    const r = await cli(['decode', lossy, '--json']);
    const sends = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; from: string; messages: Array<{ type: number; name: string }> });
    const type3 = (from: string) =>
      new Set(
        sends
          .filter((s) => s.event === 'send' && s.from === from)
          .flatMap((s) => s.messages.filter((m) => m.type === 3).map((m) => m.name)),
      );
    expect(type3('client')).toEqual(new Set(['connect']));
    expect(type3('server')).toEqual(new Set(['connectAck']));
    const trace = await cli(['trace', 'lossy-link', '--until', '2s', '--json']);
    const first = JSON.parse(trace.stdout.split('\n')[0]) as {
      from: string;
      messages: Array<{ type: number; name: string }>;
    };
    expect(first).toMatchObject({ from: 'client', messages: [{ type: 3, name: 'connect' }] });
  });
});
