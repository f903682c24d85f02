// `bcsim decode` input from a file (--file) or stdin (-), the >512-byte warning, and
// the label of the client's connect request (type 0x03 from peer 0xFF).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const CLIENT_CONNECT = 'FF 01 03 0F C0 00 00 FF 54 B1 7C 00 4F B3 58 0B BE';
const SERVER_PACKET =
  '01 02 03 06 C0 00 00 02 32 1B 80 00 00 20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20';

/** A 600-byte datagram: one unreliable game message of 598 bytes. */
const OVERSIZED = (() => {
  const size = 598;
  const bytes = [0x02, 0x01, 0x32, size & 0xff, (size >> 8) & 0x1f, ...new Array<number>(size - 3).fill(0xab)];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ');
})();

const dir = mkdtempSync(join(tmpdir(), 'bcsim-decode-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const withStdin = (args: string[], stdin: string | (() => string)) =>
  cli(args, { cwd: dir, readStdin: typeof stdin === 'function' ? stdin : () => stdin });

describe('decode input', () => {
  it('`decode -` reads the hex from stdin, and decodes it as the arguments would be', async () => {
    const fromArgs = await cli(['decode', SERVER_PACKET]);
    const fromStdin = await withStdin(['decode', '-'], `${SERVER_PACKET.replace(/ (..) /g, ' $1\n')}\n`);
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stderr).toBe('');
    expect(fromStdin.stdout).toBe(fromArgs.stdout);
  });

  it('`decode --file PATH` reads a file relative to the working directory, # comments allowed', async () => {
    writeFileSync(join(dir, 'server.hex'), `# the server's ConnectAck datagram\n${SERVER_PACKET} # trailing note\n`);
    const r = await withStdin(['decode', '--file', 'server.hex', '--json'], () => {
      throw new Error('stdin must not be read');
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, length: 35, peerId: 1, messageCount: 2 });
  });

  it('real stdin: `echo … | bcsim decode -`', () => {
    const r = spawnSync(process.execPath, ['dist/cli/main.js', 'decode', '-'], {
      input: `${CLIENT_CONNECT}\n`,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('datagram: 17 bytes, peer 0xFF (unassigned), 1 message');
  });

  it('bad hex in a file or on stdin is one line, exit 2, with the character offset in the input', async () => {
    writeFileSync(join(dir, 'bad.hex'), '01 02\n0G\n');
    const file = await withStdin(['decode', '--file', 'bad.hex'], '');
    expect(file.code).toBe(2);
    expect(file.stdout).toBe('');
    expect(file.stderr).toBe('bcsim: decode: input is not hex at character 7: "G" is not a hex digit\n');
    const stdin = await withStdin(['decode', '-'], '  \n');
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toBe('bcsim: decode: input is not hex at character 0: no hex digits\n');
  });

  it('an unreadable file or stdin is one line, exit 2, no stack', async () => {
    const missing = await withStdin(['decode', '--file', 'no-such.hex'], '');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('bcsim: decode: cannot read --file no-such.hex (no such file)\n');
    const directory = await withStdin(['decode', '--file', '.'], '');
    expect(directory.code).toBe(2);
    expect(directory.stderr).toBe('bcsim: decode: cannot read --file . (is a directory)\n');
    const closed = await withStdin(['decode', '-'], () => {
      throw Object.assign(new Error('closed'), { code: 'EAGAIN' });
    });
    expect(closed.code).toBe(2);
    expect(closed.stderr).toBe('bcsim: decode: cannot read stdin (nothing to read yet)\n');
  });

  it('needs exactly one source of input', async () => {
    writeFileSync(join(dir, 'one.hex'), '02 01 01 02 00 01 02');
    for (const [args, message] of [
      [['decode'], 'bcsim: decode: no input: give the hex as arguments, - to read stdin, or --file PATH\n'],
      [
        ['decode', '--file', 'one.hex', '00'],
        'bcsim: decode: give the hex as arguments, as - (stdin) or with --file, not both\n',
      ],
      [
        ['decode', '--file', 'one.hex', '-'],
        'bcsim: decode: give the hex as arguments, as - (stdin) or with --file, not both\n',
      ],
    ] as Array<[string[], string]>) {
      const r = await withStdin(args, '00');
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(message);
    }
  });
});

describe('decode warnings and labels', () => {
  it('warns on stderr, naming the length, when a datagram exceeds 512 bytes, and still decodes it', async () => {
    const r = await cli(['decode', OVERSIZED]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'bcsim: warning: datagram is 600 bytes, over the 512-byte limit the stock engine builds or accepts\n',
    );
    expect(r.stdout).toContain('datagram: 600 bytes, peer 0x02 (client slot 2), 1 message');
    const json = await cli(['decode', '--json', OVERSIZED]);
    expect(json.stderr).toContain('datagram is 600 bytes');
    expect(JSON.parse(json.stdout).length).toBe(600);
  });

  it('does not warn at exactly 512 bytes', async () => {
    const size = 510;
    const bytes = [0x02, 0x01, 0x32, size & 0xff, (size >> 8) & 0x1f, ...new Array<number>(size - 3).fill(0)];
    const r = await cli(['decode', bytes.map((b) => b.toString(16).padStart(2, '0')).join('')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('datagram: 512 bytes');
  });

  it('labels type 0x03 from peer 0xFF as the client connect, and from the server as connectAck', async () => {
    const client = await cli(['decode', CLIENT_CONNECT]);
    expect(client.stdout).toMatch(
      /@2 +connect \(type 0x03 as captured\) reliable\+ordered seq=0 len=15 flags_len=0xC00F/,
    );
    expect(client.stdout).not.toContain('connectAck');
    const server = await cli(['decode', SERVER_PACKET]);
    expect(server.stdout).toMatch(/@2 +connectAck \(0x03\) reliable\+ordered seq=0 len=6/);
    // A client with a slot (0x02) carrying type 0x03: nothing says it is a connect request.
    const slotted = await cli(['decode', `02${CLIENT_CONNECT.replace(/ /g, '').slice(2)}`]);
    expect(slotted.stdout).toContain('connectAck (0x03)');
  });

  it('--help lists --file and - with examples', async () => {
    const r = await cli(['decode', '--help']);
    expect(r.stdout).toContain('--file <path>');
    expect(r.stdout).toContain('bcsim decode --file capture.hex');
    expect(r.stdout).toContain('| bcsim decode -');
  });
});
