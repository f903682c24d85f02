// `bcsim trace` of a multi-client session: lines name the connection
// (its slot, or `cK` before the server accepted it), `--client K` and `--slot S`
// keep one connection, and one-client traces are unchanged.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatEvent, traceHeader } from '../../src/model/trace/format.js';
import { cli } from '../support/cli.js';

const ARGS = ['trace', 'valentines', '--until', '20s', '--bytes', 'none'];
/** Client 1's connects are lost for 5 s: clients 2 and 3 get slots 2 and 3, client 1 slot 4. */
const LATE_CLIENT_1 = ['--set', 'link.clients.1.clientToServer.outages=[{"start":"0s","end":"5s"}]'];

/** The event lines of a text trace (not the `#` comments or the column header). */
const eventLines = (text: string) => text.split('\n').filter((l) => /^ +\d+\.\d{3}  /.test(l));
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          t: number;
          event: string;
          client: number;
          slot: number | null;
          from?: string;
          at?: string;
          to?: string;
          role?: string;
        },
    );

describe('trace of a 3-client session', () => {
  it('names each connection: the slot once the server gave one, cK before', async () => {
    const r = await cli(ARGS);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('# valentines · mode stock · seed 1 · 3 clients');
    expect(lines[1]).toBe(traceHeader('none', 3));
    expect(lines[1]).toBe('    time  dir      event        messages');
    const events = eventLines(r.stdout);
    // The first connect of each client goes out before it has a slot.
    expect(
      events.filter((l) => /^ +[\d.]+  c\d>S +send +connect /.test(l)).map((l) => l.match(/c(\d)>S/)?.[1]),
    ).toEqual(['1', '2', '3']);
    for (const label of ['S>C2', 'C2>S', 'at S2', 'at C2', 'S>C3', 'C4>S', 'at S4']) {
      expect(events.some((l) => l.slice(10, 19).trimEnd() === label)).toBe(true);
    }
    // Every line keeps the event column aligned, whatever the label.
    for (const l of events) expect(l.slice(19)).toMatch(/^(send|DROP\(|LINK-DUP|ack|DUPLICATE|state)/);
  });

  it('--json carries client and slot (null until the server accepted the connection)', async () => {
    const events = jsonLines((await cli([...ARGS, '--json'])).stdout);
    expect(new Set(events.map((e) => e.client))).toEqual(new Set([1, 2, 3]));
    expect(events[0]).toMatchObject({ event: 'send', client: 1, slot: null, from: 'client' });
    for (const e of events) expect(e.slot === null || e.slot === e.client + 1).toBe(true);
    expect(events.filter((e) => e.slot === null).every((e) => e.from === 'client')).toBe(true);
  });

  it('--client K keeps only client K’s connection, both ends', async () => {
    const all = jsonLines((await cli([...ARGS, '--json'])).stdout);
    const r = await cli([...ARGS, '--json', '--client', '2']);
    expect(r.code).toBe(0);
    const two = jsonLines(r.stdout);
    expect(two.length).toBeGreaterThan(50);
    expect(two.every((e) => e.client === 2)).toBe(true);
    expect(new Set(two.map((e) => e.from ?? e.at ?? e.to ?? e.role))).toEqual(new Set(['client', 'server']));
    expect(two).toEqual(all.filter((e) => e.client === 2));
    // --peer still narrows it to one side.
    const server = jsonLines((await cli([...ARGS, '--json', '--client', '2', '--peer', 'server'])).stdout);
    expect(server).toEqual(two.filter((e) => (e.from ?? e.at ?? e.to ?? e.role) === 'server'));
  });

  it('--slot S keeps the connection that got slot S, from its first connect attempt', async () => {
    const full = await cli([...ARGS, ...LATE_CLIENT_1]);
    const r = await cli([...ARGS, ...LATE_CLIENT_1, '--slot', '4']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('# valentines · mode stock · seed 1 · 3 clients · slot 4 is client 1');
    const byClient = eventLines((await cli([...ARGS, ...LATE_CLIENT_1, '--client', '1'])).stdout);
    const bySlot = eventLines(r.stdout);
    expect(bySlot).toEqual(byClient);
    // The lost connects (before the slot) come first, then the connection as slot 4.
    expect(bySlot[0]).toMatch(/^ +0\.047  c1>S +send +connect/);
    expect(bySlot.some((l) => / c1>S +DROP\(outage\) /.test(l))).toBe(true);
    expect(bySlot.every((l) => /^ +[\d.]+  (c1>S|C4>S|S>C4|at C4|at S4|at c1) /.test(l))).toBe(true);
    expect(bySlot).toEqual(eventLines(full.stdout).filter((l) => /  (c1>S|C4>S|S>C4|at C4|at S4|at c1) /.test(l)));
    // Slot 2 went to client 2.
    const two = await cli([...ARGS, ...LATE_CLIENT_1, '--slot', '2']);
    expect(eventLines(two.stdout)).toEqual(
      eventLines((await cli([...ARGS, ...LATE_CLIENT_1, '--client', '2'])).stdout),
    );
  });

  it('rejects bad --client and --slot values with one line and exit 2', async () => {
    for (const [flags, message] of [
      [['--client', 'two'], '--client: expected a whole number 1..3 (valentines has 3 clients), got "two"'],
      [['--client', '0'], '--client: expected a whole number 1..3 (valentines has 3 clients), got "0"'],
      [['--client', '4'], '--client: expected a whole number 1..3 (valentines has 3 clients), got "4"'],
      [
        ['--slot', '1'],
        '--slot: expected a whole number 2..4 (the server gives 3 clients slots from 2 in connect order), got "1"',
      ],
      [
        ['--slot', '5'],
        '--slot: expected a whole number 2..4 (the server gives 3 clients slots from 2 in connect order), got "5"',
      ],
      [
        ['--slot', '-3'],
        '--slot: expected a whole number 2..4 (the server gives 3 clients slots from 2 in connect order), got "-3"',
      ],
      [
        ['--slot', '4', '--until', '3s'],
        '--slot: no client got slot 4 in this run (fewer clients connected before it ended)',
      ],
      [['--client', '1', '--slot', '2'], '--slot: cannot be combined with --client (each names one connection)'],
    ] as Array<[string[], string]>) {
      const r = await cli([...ARGS, ...flags]);
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toBe(`bcsim: ${message}\n`);
      expect(r.stdout).toBe('');
    }
  });

  it('--help documents both flags and the labels', async () => {
    const help = (await cli(['trace', '--help'])).stdout;
    expect(help).toContain('--client <k>');
    expect(help).toContain('--slot <s>');
    expect(help).toContain('C3>S, S>C3, at C3');
    expect(help).toContain('c2>S, at c2');
  });
});

describe('one-client traces are unchanged', () => {
  it('keeps C>S / at S and the golden file; --client 1 and --slot 2 are the whole trace', async () => {
    const args = ['trace', 'fragment-ack-bug', '--mode', 'stock', '--until', '20s'];
    const golden = readFileSync('test/golden/fragment-ack-bug.stock.20s.trace', 'utf8');
    expect((await cli(args)).stdout).toBe(golden);
    expect((await cli([...args, '--client', '1'])).stdout).toBe(golden);
    expect((await cli([...args, '--slot', '2'])).stdout).toBe(
      golden.replace('seed 1\n', 'seed 1 · slot 2 is client 1\n'),
    );
    const r = await cli([...args, '--client', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bcsim: --client: expected a whole number 1..1 (fragment-ack-bug has 1 client), got "2"\n');
  });

  it('formats an event the same way with clients: 1 as without', () => {
    const event = { kind: 'state', timeUs: 1_500_000, client: 1, slot: 2, role: 'server', state: 'open' } as const;
    expect(formatEvent(event)).toBe('   1.500  at S  state        connection open');
    expect(formatEvent(event, { clients: 1 })).toBe(formatEvent(event));
    expect(formatEvent(event, { clients: 2 })).toBe('   1.500  at S2    state        connection open');
    expect(formatEvent({ ...event, slot: null }, { clients: 2 })).toBe(
      '   1.500  at S:c1  state        connection open',
    );
    expect(traceHeader('full', 1)).toBe(traceHeader());
  });
});
