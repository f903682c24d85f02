// `trace --bytes none|short|fit|full` (fit by default, terminal or not) and the label of
// the client's connect request in a trace.
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const ARGS = ['trace', 'fragment-ack-bug', '--mode', 'stock', '--until', '2s'];

const onTerminal = (args: string[]) => cli(args, { stdoutIsTTY: true });

const datagramLines = (text: string) => text.split('\n').filter((l) => / (send|DROP\(\w+\)|LINK-DUP) /.test(l));

describe('trace --bytes', () => {
  it('defaults to fit, into a pipe or a terminal: every line within 120 columns, saying how many bytes it cut', async () => {
    const byDefault = await cli(ARGS);
    expect((await onTerminal(ARGS)).stdout).toBe(byDefault.stdout);
    expect((await cli([...ARGS, '--bytes', 'fit'])).stdout).toBe(byDefault.stdout);
    const full = datagramLines((await cli([...ARGS, '--bytes', 'full'])).stdout);
    const fit = datagramLines(byDefault.stdout);
    expect(fit).toHaveLength(full.length);
    let cut = 0;
    let countOnly = 0;
    fit.forEach((line, i) => {
      const whole = full[i];
      if (whole.length <= 120) return expect(line).toBe(whole);
      // The leading bytes of the full line, then how many were left out: shown + cut = the datagram's size.
      const [, shown, left] = line.match(/^(.*?) ?… \+(\d+) B$/) as RegExpMatchArray;
      const all = whole.slice(whole.lastIndexOf(' | ') + 3).split(' ').length;
      const text = whole.slice(0, whole.lastIndexOf(' | '));
      cut++;
      if (shown === text + ' |') {
        // Text alone too wide for any byte: the line keeps its text whole (one event, one line) and the count.
        expect(Number(left)).toBe(all);
        expect(text.length + 3 + 1 + 5).toBeGreaterThan(120);
        return countOnly++;
      }
      expect(whole.startsWith(`${shown} `)).toBe(true);
      expect(shown.slice(shown.lastIndexOf(' | ') + 3).split(' ').length + Number(left)).toBe(all);
      expect(line.length).toBeLessThanOrEqual(120);
      // As many bytes as fit: one more would pass 120 columns.
      expect(line.length + 3).toBeGreaterThan(120);
    });
    expect(countOnly).toBeLessThan(cut);
    expect(cut).toBeGreaterThan(5);
    // The 418-byte datagram of the request's ACK and the first fragment: its text is too wide for a byte, so a count;
    // the second fragment's shorter text leaves room for its first two.
    expect(byDefault.stdout).toContain('frag=0/3 len=412 flags_len=0xA19C payload=405B | … +418 B\n');
    expect(byDefault.stdout).toContain('frag=1 len=411 flags_len=0xA19B payload=405B | 02 01 … +411 B\n');
  });

  it('full keeps every byte, for saved traces', async () => {
    const full = await cli([...ARGS, '--bytes', 'full']);
    // The round-2 checksum response's first fragment after the ACK of its request (the captured 418 bytes):
    // 0x21, round 2, its directory hash, 63 files (docs/sources.md 31).
    expect(full.stdout).toContain('| 02 02 01 02 00 00 32 9C A1 02 00 00 03 21 02 6F B5 A7 1B 3F 00 FE 55 7B');
    expect(full.stdout).not.toContain('…');
  });

  it('short: the first 16 bytes, then …, one line of readable width per datagram', async () => {
    const short = await cli([...ARGS, '--bytes', 'short']);
    expect(short.code).toBe(0);
    const lines = datagramLines(short.stdout);
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) {
      const bytes = line.slice(line.lastIndexOf(' | ') + 3);
      expect(bytes).toMatch(/^([0-9A-F]{2}( [0-9A-F]{2}){0,15})( …)?$/);
      // Cut exactly when there were more than 16 bytes.
      if (bytes.endsWith('…')) expect(bytes.split(' ')).toHaveLength(17);
    }
    // The 418-byte datagram of the request's ACK and the first fragment: 16 bytes then the ellipsis; a 6-byte ACK datagram whole.
    expect(short.stdout).toContain('payload=405B | 02 02 01 02 00 00 32 9C A1 02 00 00 03 21 02 6F …\n');
    expect(short.stdout).toContain('[4 bytes] | 02 01 01 01 00 02\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(400);
  });

  it('a terminal still gets full bytes when asked, and --json keeps full hex by default', async () => {
    const tty = await onTerminal([...ARGS, '--bytes', 'full']);
    expect(tty.stdout).toBe((await cli([...ARGS, '--bytes', 'full'])).stdout);
    const json = await onTerminal([...ARGS, '--json']);
    expect(json.stdout).toBe((await cli([...ARGS, '--json'])).stdout);
    expect(json.stdout).not.toContain('hexTruncated');
  });

  it('none drops the bytes column and its header', async () => {
    const none = await cli([...ARGS, '--bytes', 'none']);
    const full = await cli([...ARGS, '--bytes', 'full']);
    expect(none.stdout).not.toContain(' | ');
    expect(none.stdout.split('\n')[1]).toBe('    time  dir   event        messages');
    // The same events, each line the full one less its bytes.
    const strip = (text: string) =>
      text.split('\n').map((l) => l.replace(/ \| [0-9A-F ]+$/, '').replace(/ \| bytes$/, ''));
    expect(none.stdout.split('\n')).toEqual(strip(full.stdout));
  });

  it('with --json, none omits "hex", short cuts it to 16 bytes with hexTruncated, fit keeps it whole', async () => {
    const parse = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event: string; hex?: string; hexTruncated?: boolean });
    const full = parse((await cli([...ARGS, '--json'])).stdout);
    const none = parse((await cli([...ARGS, '--json', '--bytes', 'none'])).stdout);
    const short = parse((await cli([...ARGS, '--json', '--bytes', 'short'])).stdout);
    expect(parse((await cli([...ARGS, '--json', '--bytes', 'fit'])).stdout)).toEqual(full);
    expect(none).toHaveLength(full.length);
    expect(none.every((e) => !('hex' in e))).toBe(true);
    full.forEach((e, i) => {
      if (e.hex === undefined) return;
      const s = short[i];
      if (e.hex.length > 32) expect(s).toMatchObject({ hex: e.hex.slice(0, 32), hexTruncated: true });
      else expect(s.hex === e.hex && !('hexTruncated' in s)).toBe(true);
    });
  });

  it('rejects another value with one line and exit 2; --help documents it with an example', async () => {
    const r = await cli([...ARGS, '--bytes', 'some']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bcsim: --bytes: expected none, short, fit, full, got "some"\n');
    const help = await cli(['trace', '--help']);
    expect(help.stdout).toContain('--bytes <how>');
    expect(help.stdout).toContain('bcsim trace fragment-ack-bug --until 20s --bytes none');
  });
});

describe("the client's connect request in a trace", () => {
  it('is labelled connect (type 0x03 as captured); the server ConnectAck stays connectAck', async () => {
    const r = await cli([...ARGS, '--until', '0.1s', '--bytes', 'full']);
    const lines = r.stdout.split('\n');
    const connect = lines.find((l) => l.includes('C>S') && l.includes('| FF '));
    expect(connect).toMatch(
      /C>S {3}send {9}connect \(type 0x03 as captured\) reliable\+ordered seq=0 len=15 flags_len=0xC00F payload=10B \| FF 01 03/,
    );
    const ack = lines.find((l) => l.includes('S>C') && l.includes('| 01 02 03 '));
    expect(ack).toMatch(/S>C {3}send {9}connectAck \(0x03\) reliable\+ordered seq=0 len=6/);
    expect(lines.filter((l) => l.includes('C>S') && l.includes('connectAck'))).toEqual([]);
  });
});
