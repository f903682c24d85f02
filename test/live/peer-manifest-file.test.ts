// `--manifest FILE` live on loopback: a `bcsim peer server` given a hash tool's
// manifest checks every hash against it (as a real server with a manifest does)
// and refuses a client whose answers differ; the client says so first, with the
// round and the hashes it sent, and exits 1. Given the same manifest, both join.
// The fixture's hashes are made up.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { bcsim, freeUdpPort } from '../support/live.js';

const HASH_TOOL = 'test/scenarios/manifest-hash-tool.json';
const dir = mkdtempSync(join(tmpdir(), 'bcsim-manifest-file-'));

/** The fixture in bcsim's form, one hash of round 2 changed: the server refuses round 2. */
const OTHER = join(dir, 'other.json');
const fixture = JSON.parse(readFileSync(HASH_TOOL, 'utf8'));
writeFileSync(
  OTHER,
  JSON.stringify({
    refHash: fixture.version_string_hash,
    rounds: [
      ...fixture.directories.map((d: Record<string, unknown>) => ({
        round: d.index,
        dir: d.path,
        filter: d.filter,
        recursive: d.recursive,
        dirHash: d.dir_name_hash,
        tree: tree(d, d.index === 2),
      })),
      { round: 255, dir: 'Scripts/Multiplayer', filter: '*.pyc', recursive: true, tree: { files: ['Mission1.pyc'] } },
    ],
  }),
);

function tree(d: Record<string, unknown>, changed: boolean): unknown {
  const files = (d.files as Array<Record<string, string>>).map((f, i) => ({
    name: f.filename,
    nameHash: f.name_hash,
    contentHash: changed && i === 1 ? '0xDEADBEEF' : f.content_hash,
  }));
  const subdirs = ((d.subdirs ?? []) as Array<Record<string, unknown>>).map((s) => ({
    name: s.name,
    nameHash: s.name_hash,
    ...(tree(s, false) as object),
  }));
  return { files, subdirs };
}

interface LiveJson {
  manifest: { file: string; form: string; rounds: Array<{ round: number; from: string }> } | null;
  checksumRefusal: { round: number; action: { kind: string } } | null;
  removals: Array<{ client: number; reason: string }>;
  conformance: Array<{ rule: string; passed: boolean }>;
}

async function pair(server: readonly string[], client: readonly string[], clientS: number) {
  const port = await freeUdpPort();
  const s = bcsim(['peer', 'server', '--listen', `127.0.0.1:${port}`, ...server, '--duration', `${clientS + 3}s`]);
  await s.stderrSays('waiting for clients');
  const c = bcsim(['peer', 'client', '--connect', `127.0.0.1:${port}`, ...client, '--duration', `${clientS}s`]);
  const [cd, sd] = await Promise.all([c.exited, s.exited]);
  return { client: cd, server: sd };
}

const joined = (j: LiveJson) => j.conformance.find((r) => r.rule === 'join-completes')?.passed;

describe.concurrent('--manifest FILE, live on loopback', () => {
  it('a server with a manifest refuses a client of another at round 0: the client says so first, exits 1', async () => {
    const { client, server } = await pair(['--manifest', HASH_TOOL], [], 6);
    expect(client.code).toBe(1);
    expect(client.stdout.split('\n')[0]).toMatch(
      /^bcsim peer client: the server refused our round-0 checksum answer \(ref 0x7E0CE243, dir 0x4DAFCB2F, App\.pyc name 0x373EB677 content 0xF8A0A768\): it Booted us \d+\.\d\d s later \(a transport Boot, type 0x04, payload 02\) — if it checks file hashes, give it its manifest with --manifest FILE$/,
    );
    expect(client.stdout).toContain('FAIL join-completes');
    expect(client.stdout).toMatch(/the join did not complete: the server refused our round-0 checksum answer/);
    // The server checked hashes because it was given a manifest, and says which rounds are the file's.
    expect(server.stderr).toContain(
      `bcsim peer server: manifest ${HASH_TOOL} (hash-tool form), answers checked hash by hash (--checksums hashes): rounds 0, 1, 2, 3 from the file; round 0xFF is not in it and is asked from bcsim's stand-in, its answer checked by form only\n`,
    );
    expect(server.stdout).toContain('with a Boot: round 0: reference hash 0x7E0CE243, expected 0x0A0B0C0D');
  }, 60_000);

  it('a client of a manifest that differs at round 2 is refused there, its files named', async () => {
    const { client } = await pair(['--manifest', HASH_TOOL], ['--manifest', OTHER, '--json'], 8);
    expect(client.code).toBe(1);
    const j = JSON.parse(client.stdout) as LiveJson;
    expect(j.checksumRefusal).toMatchObject({ round: 2, action: { kind: 'boot' } });
    expect(j.manifest).toEqual({
      file: OTHER,
      form: 'bcsim',
      rounds: [0, 1, 2, 3, 255].map((round) => ({ round, from: 'file' })),
    });
    expect(client.stderr).toContain(
      'bcsim peer client: the server refused our round-2 checksum answer (dir 0x33330000, Galaxy.pyc name 0x33330001 content 0x3333C001, Warbird.pyc name 0x33330002 content 0xDEADBEEF, Shuttle.pyc name 0x33330003 content 0x3333C003, and 2 more files): it Booted us ',
    );
    expect(client.stderr).toContain(`— if it checks file hashes, its manifest differs from ${OTHER}\n`);
  }, 60_000);

  it('client and server of the same manifest join', async () => {
    // The join takes ~8 s on the wall clock and a fixed client starts its goodbye 4 s before the end: 16 s leave room.
    const { client, server } = await pair(['--manifest', HASH_TOOL, '--json'], ['--manifest', HASH_TOOL, '--json'], 16);
    const c = JSON.parse(client.stdout) as LiveJson;
    const s = JSON.parse(server.stdout) as LiveJson;
    for (const j of [c, s]) {
      expect(joined(j)).toBe(true);
      expect(j.manifest).toEqual({
        file: HASH_TOOL,
        form: 'hash-tool',
        rounds: [...[0, 1, 2, 3].map((round) => ({ round, from: 'file' })), { round: 255, from: 'stand-in' }],
      });
    }
    expect(c.checksumRefusal).toBeNull();
    expect(s.removals).toEqual([]);
    expect(client.stderr).toContain(
      `bcsim peer client: manifest ${HASH_TOOL} (hash-tool form): rounds 0, 1, 2, 3 from the file; round 0xFF is not in it and uses bcsim's stand-in hashes\n`,
    );
  }, 60_000);

  it('--checksums form overrides what --manifest implies: the server only parses the answers', async () => {
    // As above: 16 s leave room for the join and the goodbye.
    const { client, server } = await pair(['--manifest', HASH_TOOL, '--checksums', 'form', '--json'], ['--json'], 16);
    expect(joined(JSON.parse(client.stdout) as LiveJson)).toBe(true);
    expect(joined(JSON.parse(server.stdout) as LiveJson)).toBe(true);
    expect(server.stderr).toContain('answers checked by form (--checksums form): rounds 0, 1, 2, 3 from the file');
  }, 60_000);
});

describe('--manifest FILE: bad input is one line, exit 2', () => {
  const broken = join(dir, 'broken.json');
  const bad = JSON.parse(readFileSync(HASH_TOOL, 'utf8'));
  bad.directories[2].files[1].content_hash = 4171278184;
  writeFileSync(broken, JSON.stringify(bad));
  const cases: Array<[string[], string | RegExp]> = [
    [['--manifest', join(dir, 'missing.json')], `--manifest ${join(dir, 'missing.json')}: cannot read: no such file`],
    [['--manifest', dir], `--manifest ${dir}: cannot read: is a directory`],
    [
      ['--manifest', broken],
      `--manifest ${broken}: directories[2].files[1].content_hash: expected a u32 hash: a "0x…" hex string of 1 to 8 digits, got 4171278184`,
    ],
    [['--manifest', 'test/scenarios/manifest-two-rounds.json', '--checksums', 'hashes'], /--checksums is for a server/],
  ];
  for (const [args, message] of cases) {
    it(args.join(' '), async () => {
      const r = await cli(['peer', 'client', '--connect', '127.0.0.1:22101', ...args]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      if (typeof message === 'string') expect(r.stderr).toBe(`bcsim: ${message}\n`);
      else expect(r.stderr).toMatch(message);
    });
  }
});
