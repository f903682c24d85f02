// What the `--pcap` end-to-end tests share: tshark's reading of a capture, the packets
// read directly, the trace's lines, and scratch folders.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { toHex } from '../../src/core/codec/index.js';
import { cli, withoutPlanCut } from '../support/cli.js';
import { tempDirs } from '../support/temp-dirs.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const FRAME_HEADER_BYTES = 42;
/** 2002-02-28T00:00:00Z, simulated time 0 in every capture. */
const EPOCH_SECONDS = 1014854400;

export function tshark(args: string[]): string {
  const r = spawnSync('tshark', args, { encoding: 'utf8', maxBuffer: 512 << 20 });
  if (r.error)
    throw new Error(`tshark does not run (${r.error.message}): the pcapng tests need it (apt-get install tshark)`);
  const errors = r.stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('Running as user "root"'))
    .join('\n');
  expect(errors, `tshark ${args.join(' ')}: stderr`).toBe('');
  expect(r.status, `tshark ${args.join(' ')}: exit status`).toBe(0);
  return r.stdout;
}

/** One row per packet, the fields split on |. */
export function fields(file: string, names: string[], extra: string[] = []): string[][] {
  const out = tshark([
    '-r',
    file,
    ...extra,
    '-T',
    'fields',
    '-E',
    'separator=|',
    '-E',
    'occurrence=f',
    ...names.flatMap((n) => ['-e', n]),
  ]);
  return out === ''
    ? []
    : out
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => l.split('|'));
}

export interface Packet {
  timestampUs: number;
  frame: Buffer;
  payload: Buffer;
  comment: string | null;
}

/** The Enhanced Packet Blocks of a pcapng file, read directly (the writer's own tests check the framing). */
export function packets(file: string): Packet[] {
  const bytes = readFileSync(file);
  const out: Packet[] = [];
  for (let at = 0; at < bytes.length; ) {
    const type = bytes.readUInt32LE(at);
    const total = bytes.readUInt32LE(at + 4);
    if (type === 6) {
      const captured = bytes.readUInt32LE(at + 20);
      const frame = bytes.subarray(at + 28, at + 28 + captured);
      let opt = at + 28 + ((captured + 3) & ~3);
      let comment: string | null = null;
      while (opt < at + total - 4) {
        const code = bytes.readUInt16LE(opt);
        const length = bytes.readUInt16LE(opt + 2);
        if (code === 0) break;
        if (code === 1) comment = bytes.subarray(opt + 4, opt + 4 + length).toString('utf8');
        opt += 4 + ((length + 3) & ~3);
      }
      out.push({
        timestampUs: bytes.readUInt32LE(at + 12) * 2 ** 32 + bytes.readUInt32LE(at + 16),
        frame,
        payload: frame.subarray(FRAME_HEADER_BYTES),
        comment,
      });
    }
    at += total;
  }
  return out;
}

interface TraceMessage {
  type: number;
  note: string;
  transmission: number;
  seq: number | null;
  fragIndex: number | null;
}
export interface TraceLine {
  t: number;
  event: string;
  client: number;
  from: 'server' | 'client';
  hex: string;
  cause?: string;
  messages: TraceMessage[];
}

export async function traceLines(args: string[]): Promise<TraceLine[]> {
  const r = await cli(['trace', ...args, '--json']);
  expect(r.code).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as TraceLine);
}

export const sends = (lines: TraceLine[]) => lines.filter((l) => l.event === 'send');
export const usOf = (t: number) => Math.round(t * 1e6);
export const hexOf = (bytes: Uint8Array) => toHex(bytes, '');

const dirs = tempDirs('bcsim-pcap-');
/** A scratch folder; each test file calls removeTemps in its afterAll. */
export const temp = dirs.temp;
export const removeTemps = dirs.remove;

export async function runWithPcap(
  args: string[],
  file: string,
): Promise<{ datagrams: number; summary: Record<string, unknown> }> {
  const r = await cli(['run', ...args, '--json', '--pcap', file]);
  expect(withoutPlanCut(r.stderr)).toBe('');
  expect(r.code).toBe(0);
  const summary = JSON.parse(r.stdout);
  return { datagrams: summary.datagrams, summary };
}

/** "1014854400.047000000": tshark's frame.time_epoch for a simulated time. */
export function epochText(us: number): string {
  return `${EPOCH_SECONDS + Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}000`;
}

/** Each packet's comment has the retransmit marks (with the trace's numbers) and dead-zone marks of its trace line. */
export function expectTraceMarks(comments: readonly string[], trace: readonly TraceLine[]): void {
  expect(comments).toHaveLength(trace.length);
  const retransmits = (text: string) => [...text.matchAll(/\[RETRANSMIT #(\d+)\]/g)].map((m) => Number(m[1]));
  comments.forEach((comment, i) => {
    const expected = trace[i].messages.filter((m) => m.note === 'retransmit').map((m) => m.transmission);
    expect(retransmits(comment), `packet ${i + 1}: ${comment}`).toEqual(expected);
    expect(comment.includes('[DEAD-ZONE ACK, pass 2]'), `packet ${i + 1}: ${comment}`).toBe(
      trace[i].messages.some((m) => m.note === 'dead-zone-ack'),
    );
  });
}
