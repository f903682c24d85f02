// One rule for every output path: a file's folder, and a named output folder's parent,
// must exist. A mistyped folder is refused with one line and exit 2 before any work
// starts, and nothing is created.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

const REPRO = 'bcsim swarm --seed 9062024 --index 208 --mode fixed --switch plantedBug=no-duplicate-ack';
/** Nothing listens there: a command that got past its flags would wait on it. */
const NOBODY = '127.0.0.1:9';

/** Each command with one output flag given `missing/…`; the flag and value come last. */
const OUTPUTS: ReadonlyArray<readonly string[]> = [
  ['run', 'lobby-idle', '--pcap', 'missing/x.pcapng'],
  ['trace', 'lobby-idle', '--pcap', 'missing/x.pcapng'],
  ['compare', 'lobby-idle', '--out-dir', 'missing/report'],
  ['compare', 'lobby-idle', '--pcap', 'missing/x.pcapng'],
  ['compare', 'rtype-deaths', '--out-dir', 'missing/report'],
  ['check', 'lobby-idle', '--junit', 'missing/x.xml'],
  ['sweep', 'lobby-idle', '--jobs', '1', '--out', 'missing/x.jsonl'],
  ['sweep', 'lobby-idle', '--jobs', '1', '--html', 'missing/x.html'],
  ['sweep-merge', 'shard.jsonl', '--out', 'missing/x.jsonl'],
  ['shrink', REPRO, '--out', 'missing/x.json'],
  ['proxy', '--listen', '127.0.0.1:22199', '--upstream', NOBODY, '--out', 'missing/x.json'],
  ['proxy', '--listen', '127.0.0.1:22199', '--upstream', NOBODY, '--pcap', 'missing/x.pcapng'],
  ['conform', '--server', NOBODY, '--junit', 'missing/x.xml'],
  ['conform', '--server', NOBODY, '--out', 'missing/x.json'],
  ['conform', '--server', NOBODY, '--pcap', 'missing/x.pcapng'],
  ['peer', 'client', '--connect', NOBODY, '--duration', '1s', '--junit', 'missing/x.xml'],
  ['peer', 'client', '--connect', NOBODY, '--duration', '1s', '--out', 'missing/x.json'],
  ['soak', '--server', NOBODY, '--duration', '1s', '--out-dir', 'missing/report'],
];

describe('an output path in a folder that does not exist', () => {
  it('is refused by every command before any work, creating nothing', async () => {
    for (const args of OUTPUTS) {
      const cwd = mkdtempSync(join(tmpdir(), 'bcsim-out-'));
      const [flag, value] = args.slice(-2);
      const r = await cli([...args], { cwd });
      const what = args.join(' ');
      expect(r.stderr, what).toBe(`bcsim: ${flag} ${value}: the folder ${join(cwd, 'missing')} does not exist\n`);
      expect(r.code, what).toBe(2);
      expect(r.stdout, what).toBe('');
      expect(existsSync(join(cwd, 'missing')), what).toBe(false);
    }
  });
});
