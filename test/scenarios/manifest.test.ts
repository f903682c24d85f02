// traffic.manifest (docs/sources.md 31): a scenario declares the checksum rounds, the
// join is built from them, and a bad declaration is one line naming its path.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPE_GAME } from '../../src/core/codec/index.js';
import { ScenarioError } from '../../src/model/scenario/errors.js';
import { loadScenario, parseScenario } from '../../src/model/scenario/load.js';
import { runScenario } from '../../src/model/session/run.js';
import { SendNote } from '../../src/model/transport/index.js';
import {
  checksumResponsePayload,
  parseChecksumRequest,
  parseChecksumResponse,
  responseMismatch,
} from '../../src/model/traffic/checksum.js';
import {
  DEFAULT_MANIFEST,
  MAX_MANIFEST_FILES,
  REFERENCE_HASH,
  findRound,
  standInHash,
} from '../../src/model/traffic/manifest.js';
import type { ChecksumManifest } from '../../src/model/traffic/manifest.js';
import { recordSent } from '../support/record.js';
import type { Sent } from '../support/record.js';

const TWO_ROUNDS = 'test/scenarios/manifest-two-rounds.json';
const EXAMPLE = 'scenarios/examples/checksum-manifest.json';

/** The reliable game payloads `from` sent, first sends only, a fragmented one put back together in its place. */
function firstGamePayloads(sent: readonly Sent[], from: 'client' | 'server'): Uint8Array[] {
  const out: Uint8Array[] = [];
  const fragmented = new Map<number, { at: number; count: number; parts: Uint8Array[] }>();
  for (const d of sent) {
    if (d.from !== from) continue;
    for (const [i, m] of d.messages.entries()) {
      if (m.type !== TYPE_GAME || !m.reliable || d.notes[i] !== SendNote.FirstSend) continue;
      if (!m.fragment) {
        out.push(m.payload);
        continue;
      }
      let f = fragmented.get(m.seq as number);
      if (f === undefined) {
        f = { at: out.length, count: 0, parts: [] };
        fragmented.set(m.seq as number, f);
        out.push(Uint8Array.of());
      }
      if (m.fragIndex === 0) f.count = m.fragCount as number;
      f.parts[m.fragIndex as number] = m.payload;
      if (f.count > 0 && f.parts.filter(Boolean).length === f.count)
        out[f.at] = Uint8Array.from(Buffer.concat(f.parts));
    }
  }
  return out;
}

describe('a manifest in a scenario file', () => {
  const scenario = loadScenario(TWO_ROUNDS);
  const manifest = scenario.traffic.manifest;

  it('resolves: hashes as integers or hex, stand-ins where none is given, counts as numbered files', () => {
    expect(manifest.refHash).toBe(REFERENCE_HASH);
    expect(manifest.rounds.map((r) => r.round)).toEqual([0, 7, 255]);
    const [r0, r7] = manifest.rounds;
    expect(r0.dirHash).toBe(0x4dafcb2f);
    expect(r0.tree.files[0]).toEqual({ name: 'App.pyc', nameHash: 0x373eb677, contentHash: 0xf8a0a768 });
    expect(r0.tree.files[1]).toEqual({
      name: 'Extra.pyc',
      nameHash: standInHash('Extra.pyc'),
      contentHash: standInHash('content:Extra.pyc'),
    });
    expect(r7.dirHash).toBe(standInHash('scripts/custom'));
    expect(r7.tree.files).toHaveLength(70);
    expect(r7.tree.files[69].name).toBe('file70.pyc');
    expect(r7.tree.subdirs[0]).toMatchObject({
      name: 'Ships',
      nameHash: 0x1234,
      subdirs: [{ name: 'Deep', nameHash: standInHash('Deep'), files: [], subdirs: [] }],
    });
    expect(r7.tree.subdirs[0].files).toHaveLength(40);
  });

  it('drives a simulated join that completes: the server asks its rounds, each answer parses and matches', () => {
    const { observer, sent } = recordSent();
    const { session } = runScenario(scenario, { preset: 'stock', observer });
    expect(session.traffic.inGame()).toEqual([1]);
    expect(session.traffic.phaseLog.map((p) => p.kind)).toEqual(['join', 'lobby']);

    const requests = firstGamePayloads(sent, 'server')
      .map((p) => parseChecksumRequest(p))
      .flatMap((r) => (r.ok ? [r.value] : []));
    expect(requests.map((r) => [r.round, r.dir])).toEqual(manifest.rounds.map((r) => [r.round, r.dir]));

    const responses = firstGamePayloads(sent, 'client').filter((p) => p[0] === 0x21);
    expect(responses).toHaveLength(3);
    // Round 7 lists 70 + 40 files: 8 + 8 x 110 + 4 + ... bytes, more than one 405-byte fragment.
    expect(responses[1].length).toBe(checksumResponsePayload(manifest, manifest.rounds[1]).length);
    expect(responses[1].length).toBeGreaterThan(scenario.params.fragmentChunkBytes);
    for (const payload of responses) {
      const parsed = parseChecksumResponse(payload);
      if (!parsed.ok) throw new Error(parsed.error.reason);
      const round = findRound(manifest, parsed.value.round);
      expect(round).not.toBeNull();
      expect(responseMismatch(manifest, round as NonNullable<typeof round>, parsed.value)).toBeNull();
    }
  });

  it('a scenario without one gets the default; the example file gives the same sizes as the default', () => {
    expect(parseScenario('{ "name": "x" }', 'x.json').traffic.manifest).toBe(DEFAULT_MANIFEST);
    const example = loadScenario(EXAMPLE).traffic.manifest;
    const sizes = (m: ChecksumManifest) => m.rounds.map((r) => checksumResponsePayload(m, r).length);
    expect(sizes(example)).toEqual(sizes(DEFAULT_MANIFEST));
    // Round 0 is declared with the captured hashes: byte for byte the default's answer.
    expect(checksumResponsePayload(example, example.rounds[0])).toEqual(
      checksumResponsePayload(DEFAULT_MANIFEST, DEFAULT_MANIFEST.rounds[0]),
    );
  });

  it('the example file runs, and its join completes', () => {
    const { session } = runScenario(loadScenario(EXAMPLE), { durationUs: 15e6 });
    expect(session.traffic.inGame()).toEqual([1]);
  });
});

describe('manifest errors: one line with the path', () => {
  const base = JSON.parse(readFileSync(TWO_ROUNDS, 'utf8')) as object;
  const refusal = (sets: string[]): string => {
    try {
      parseScenario(JSON.stringify(base), 'm.json', sets);
    } catch (error) {
      if (error instanceof ScenarioError) return error.message;
      throw error;
    }
    return 'accepted';
  };
  const R = 'traffic.manifest.rounds';

  it.each<[string, string[], string]>([
    [
      'a bad hex hash',
      [`${R}[0].dirHash="0x4G"`],
      `--set ${R}[0].dirHash="0x4G": ${R}[0].dirHash: expected a u32 hash: a whole number 0..4294967295 or a "0x…" hex string of 1 to 8 digits, got "0x4G"`,
    ],
    [
      'a hash past u32',
      [`${R}[0].tree.files[0].nameHash=4294967296`],
      `--set ${R}[0].tree.files[0].nameHash=4294967296: ${R}[0].tree.files[0].nameHash: expected a u32 hash: a whole number 0..4294967295 or a "0x…" hex string of 1 to 8 digits, got 4294967296`,
    ],
    [
      'a 9-digit hex hash',
      ['traffic.manifest.refHash="0x123456789"'],
      '--set traffic.manifest.refHash="0x123456789": traffic.manifest.refHash: expected a u32 hash: a whole number 0..4294967295 or a "0x…" hex string of 1 to 8 digits, got "0x123456789"',
    ],
    [
      'a count past the bound',
      [`${R}[1].tree.files=${MAX_MANIFEST_FILES + 1}`],
      `--set ${R}[1].tree.files=4097: ${R}[1].tree.files: expected a list of files (names, or { "name", "nameHash", "contentHash" }) or a count 0..4096, got 4097`,
    ],
    [
      'too many files in all',
      [`${R}[1].tree.files=4060`],
      `m.json: ${R}[1].tree.subdirs[0].files: more than 4096 files in the manifest (4102 so far)`,
    ],
    [
      '0xFF missing',
      [`${R}[2].round=3`],
      `--set ${R}[2].round=3: ${R}[2].round: the last round must be 0xFF (255), the one after which the server sends the settings; got 3`,
    ],
    ['a round twice', [`${R}[1].round="0x00"`], `--set ${R}[1].round="0x00": ${R}[1].round: round 0 is asked twice`],
    [
      'a round past u8',
      [`${R}[1].round=256`],
      `--set ${R}[1].round=256: ${R}[1].round: expected a round number 0..255 (0xFF is the last round), or a "0x…" hex string, got 256`,
    ],
    [
      'an empty file name',
      [`${R}[0].tree.files[1]=""`],
      `--set ${R}[0].tree.files[1]="": ${R}[0].tree.files[1].name: expected a non-empty name, got ""`,
    ],
    [
      'a file that is neither',
      [`${R}[0].tree.files[1]=7`],
      `--set ${R}[0].tree.files[1]=7: ${R}[0].tree.files[1]: expected a file name, or { "name", "nameHash", "contentHash" }, got 7`,
    ],
    [
      'an unknown key',
      [`${R}[1].tree.subdirs[0].hash=1`],
      `--set ${R}[1].tree.subdirs[0].hash=1: ${R}[1].tree.subdirs[0].hash: unknown key "hash"`,
    ],
    ['no rounds', [`${R}=[]`], `--set ${R}=[]: ${R}: expected at least one round (the last is 0xFF), got an array`],
  ])('%s', (_name, sets, message) => {
    expect(refusal(sets)).toBe(message);
    expect(message.split('\n')).toHaveLength(1);
  });
});
