// The checksum exchange's payloads (docs/sources.md 31) built from a manifest: the
// default reproduces the captured bytes and the measured sizes, every answer parses
// and matches its round, and the readers never throw on hostile bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHex } from '../../src/core/codec/index.js';
import {
  checksumRequestPayload,
  checksumResponsePayload,
  manifestOutline,
  parseChecksumRequest,
  parseChecksumResponse,
  responseMismatch,
} from '../../src/model/traffic/checksum.js';
import type { WireTree } from '../../src/model/traffic/checksum.js';
import { joinSteps } from '../../src/model/traffic/join.js';
import {
  DEFAULT_MANIFEST,
  FINAL_ROUND,
  MAX_MANIFEST_DEPTH,
  MAX_MANIFEST_FILES,
  REFERENCE_HASH,
  isDefaultManifest,
  manifestProblem,
  numberedFiles,
} from '../../src/model/traffic/manifest.js';
import type {
  ChecksumManifest,
  ManifestFile,
  ManifestRound,
  ManifestSubdir,
  ManifestTree,
} from '../../src/model/traffic/manifest.js';

const bytes = (text: string): Uint8Array => {
  const parsed = parseHex(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.bytes;
};
const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** A 0x32 reliable message's whole size: 5 header bytes ([type][flags_len u16][seq u16]) and the payload. */
const messageBytes = (payload: Uint8Array) => payload.length + 5;

// docs/sources.md R1–R3: the payloads after the seq field.
const CAPTURED_REQUEST_R0 = '20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20';
const CAPTURED_RESPONSE_R0 = '21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00';
const CAPTURED_REQUEST_R2 = '20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21';

const rounds = DEFAULT_MANIFEST.rounds;

describe('the default manifest', () => {
  it('asks rounds 0, 1, 2, 3 and 0xFF, the last for Scripts/Multiplayer *.pyc recursive (docs/sources.md 31)', () => {
    expect(rounds.map((r) => r.round)).toEqual([0, 1, 2, 3, FINAL_ROUND]);
    expect(rounds[4]).toMatchObject({ dir: 'Scripts/Multiplayer', filter: '*.pyc', recursive: true });
    expect(manifestProblem(DEFAULT_MANIFEST)).toBeNull();
  });

  it('reproduces the captured round-0 request and response and the round-2 request byte for byte', () => {
    expect(hexOf(checksumRequestPayload(rounds[0]))).toBe(hexOf(bytes(CAPTURED_REQUEST_R0)));
    expect(hexOf(checksumResponsePayload(DEFAULT_MANIFEST, rounds[0]))).toBe(hexOf(bytes(CAPTURED_RESPONSE_R0)));
    expect(hexOf(checksumRequestPayload(rounds[2]))).toBe(hexOf(bytes(CAPTURED_REQUEST_R2)));
  });

  it('gives the measured sizes: requests 27/32/30/33/36, responses 26/22/1005/46/273 bytes (whole messages)', () => {
    expect(rounds.map((r) => messageBytes(checksumRequestPayload(r)))).toEqual([27, 32, 30, 33, 36]);
    expect(rounds.map((r) => messageBytes(checksumResponsePayload(DEFAULT_MANIFEST, r)))).toEqual([
      26, 22, 1005, 46, 273,
    ]);
  });

  it('every request parses back to its round, every response parses and matches its round', () => {
    for (const round of rounds) {
      const request = parseChecksumRequest(checksumRequestPayload(round));
      expect(request).toEqual({
        ok: true,
        value: { round: round.round, dir: round.dir, filter: round.filter, recursive: round.recursive },
      });
      const response = parseChecksumResponse(checksumResponsePayload(DEFAULT_MANIFEST, round));
      if (!response.ok) throw new Error(`round ${round.round}: ${response.error.reason} at ${response.error.offset}`);
      expect(response.value.refHash).toBe(round.round === 0 ? REFERENCE_HASH : null);
      expect(responseMismatch(DEFAULT_MANIFEST, round, response.value)).toBeNull();
    }
  });

  it('responseMismatch finds a changed hash, a missing file and the wrong round', () => {
    for (const round of rounds) {
      const payload = checksumResponsePayload(DEFAULT_MANIFEST, round).slice();
      payload[payload.length - 2] ^= 0x01; // inside the last file's content hash, or a subdirectory's name hash
      const parsed = parseChecksumResponse(payload);
      if (!parsed.ok) throw new Error(parsed.error.reason);
      expect(responseMismatch(DEFAULT_MANIFEST, round, parsed.value)).toMatch(/hash/);
    }
    const r3 = parseChecksumResponse(checksumResponsePayload(DEFAULT_MANIFEST, rounds[3]));
    if (!r3.ok) throw new Error(r3.error.reason);
    expect(responseMismatch(DEFAULT_MANIFEST, rounds[2], r3.value)).toBe('round 3 where round 2 was asked');
    const fewer = { ...r3.value, tree: { ...r3.value.tree, files: r3.value.tree.files.slice(1) } };
    expect(responseMismatch(DEFAULT_MANIFEST, rounds[3], fewer)).toBe('scripts/mainmenu: 3 files, expected 4');
  });

  it('is recognised by value, and outlined with its counts and sizes', () => {
    expect(isDefaultManifest(JSON.parse(JSON.stringify(DEFAULT_MANIFEST)) as ChecksumManifest)).toBe(true);
    expect(isDefaultManifest({ ...DEFAULT_MANIFEST, refHash: 1 })).toBe(false);
    const outline = manifestOutline(DEFAULT_MANIFEST);
    expect(outline.default).toBe(true);
    expect(outline.refHash).toBe('0x7E0CE243');
    expect(
      outline.rounds.map((r) => [r.round, r.files, r.subdirs, r.requestPayloadBytes, r.responsePayloadBytes]),
    ).toEqual([
      ['0', 1, 0, 22, 21],
      ['1', 1, 0, 27, 17],
      ['2', 123, 1, 25, 1000],
      ['3', 4, 0, 28, 41],
      ['0xFF', 28, 5, 31, 268],
    ]);
  });
});

describe('manifestProblem: what the wire format and the bounds refuse', () => {
  const withRounds = (list: ManifestRound[]): ChecksumManifest => ({ refHash: REFERENCE_HASH, rounds: list });
  const round = (n: number, tree: ManifestTree = { files: [], subdirs: [] }, recursive = true): ManifestRound => ({
    round: n,
    dir: 'd',
    filter: '*',
    recursive,
    dirHash: 1,
    tree,
  });
  const nest = (depth: number): ManifestSubdir => ({
    name: 'x',
    nameHash: 1,
    files: [],
    subdirs: depth > 1 ? [nest(depth - 1)] : [],
  });

  it.each<[string, ChecksumManifest, string]>([
    ['no rounds', withRounds([]), 'rounds: expected 1 to 8 rounds, got 0'],
    [
      'the last round is not 0xFF',
      withRounds([round(0), round(2)]),
      'rounds[1].round: the last round must be 0xFF (255), the one after which the server sends the settings; got 2',
    ],
    [
      'a round asked twice',
      withRounds([round(1), round(1), round(FINAL_ROUND)]),
      'rounds[1].round: round 1 is asked twice',
    ],
    [
      'a round past u8',
      withRounds([round(256), round(FINAL_ROUND)]),
      'rounds[0].round: 256 is not a round number 0..255',
    ],
    ['a hash past u32', { refHash: 2 ** 32, rounds: [round(FINAL_ROUND)] }, 'refHash: 4294967296 is not a u32'],
    [
      'subdirectories in a non-recursive round',
      withRounds([round(FINAL_ROUND, { files: [], subdirs: [nest(1)] }, false)]),
      'rounds[0].tree.subdirs: a non-recursive round answers without subdirectories: set recursive to true, or leave them out',
    ],
    [
      'nesting past the bound',
      withRounds([round(FINAL_ROUND, { files: [], subdirs: [nest(MAX_MANIFEST_DEPTH + 1)] })]),
      `rounds[0].tree${'.subdirs[0]'.repeat(MAX_MANIFEST_DEPTH + 1)}: nested deeper than ${MAX_MANIFEST_DEPTH} directories`,
    ],
    [
      'more files than the bound',
      withRounds([
        round(1, { files: numberedFiles('a', MAX_MANIFEST_FILES), subdirs: [] }),
        round(FINAL_ROUND, { files: numberedFiles('b', 1), subdirs: [] }),
      ]),
      `rounds[1].tree.files: more than ${MAX_MANIFEST_FILES} files in the manifest`,
    ],
  ])('%s', (_name, manifest, problem) => {
    const found = manifestProblem(manifest);
    expect(found === null ? null : `${found.path}: ${found.reason}`).toBe(problem);
    expect(() => joinSteps(manifest)).toThrow(problem);
  });

  it('nesting at the bound is fine', () => {
    expect(
      manifestProblem(withRounds([round(FINAL_ROUND, { files: [], subdirs: [nest(MAX_MANIFEST_DEPTH)] })])),
    ).toBeNull();
  });
});

describe('the join of a manifest', () => {
  it('is built once per manifest, two steps per round after the first (request, response) around the fixed ones', () => {
    expect(joinSteps()).toBe(joinSteps(DEFAULT_MANIFEST));
    const small: ChecksumManifest = {
      refHash: REFERENCE_HASH,
      rounds: [DEFAULT_MANIFEST.rounds[0], DEFAULT_MANIFEST.rounds[4]],
    };
    const steps = joinSteps(small);
    expect(joinSteps(small)).toBe(steps);
    // Connect; ConnectAck + request r0; keepalive; response r0; request 0xFF; response 0xFF; settings; NewPlayerInGame; MissionInit.
    expect(steps.map((s) => s.messages.map((m) => m.label).join(' + '))).toEqual([
      'Connect',
      'ConnectAck + ChecksumRequest r0',
      'Keepalive',
      'ChecksumResponse r0',
      'ChecksumRequest 0xFF',
      'ChecksumResponse 0xFF',
      '0x28 + Settings + GameInit',
      'NewPlayerInGame',
      'MissionInit + DeletePlayerUI',
    ]);
    expect(steps.map((s) => s.after)).toEqual([null, 1, 2, 2, 4, 5, 6, 7, 8]);
    expect(joinSteps(DEFAULT_MANIFEST)).toHaveLength(15); // docs/sources.md J1
  });
});

// Random well-formed manifests: unique u8 rounds ending in 0xFF, small trees, any u32 hashes.
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const fileArb: fc.Arbitrary<ManifestFile> = fc.record({
  name: fc.string({ minLength: 1, maxLength: 12 }),
  nameHash: u32,
  contentHash: u32,
});
const treeArb = (depth: number): fc.Arbitrary<ManifestTree> =>
  fc.record({
    files: fc.array(fileArb, { maxLength: 6 }),
    subdirs:
      depth >= 3
        ? fc.constant([])
        : fc.array(
            fc
              .record({ name: fc.string({ minLength: 1, maxLength: 8 }), nameHash: u32, tree: treeArb(depth + 1) })
              .map(({ name, nameHash, tree }): ManifestSubdir => ({ name, nameHash, ...tree })),
            { maxLength: 3 },
          ),
  });
const manifestArb: fc.Arbitrary<ChecksumManifest> = fc
  .record({
    refHash: u32,
    numbers: fc.uniqueArray(fc.integer({ min: 0, max: 0xfe }), { maxLength: 4 }),
    rounds: fc.array(
      fc.record({
        dir: fc.string({ minLength: 1, maxLength: 20 }),
        filter: fc.string({ minLength: 1, maxLength: 8 }),
        recursive: fc.boolean(),
        dirHash: u32,
        tree: treeArb(0),
      }),
      {
        minLength: 5,
        maxLength: 5,
      },
    ),
  })
  .map(({ refHash, numbers, rounds: drawn }) => ({
    refHash,
    rounds: [...numbers, FINAL_ROUND].map((round, i) => {
      const r = drawn[i];
      return { round, ...r, tree: r.recursive ? r.tree : { files: r.tree.files, subdirs: [] } };
    }),
  }));

/** The wire's view of a manifest tree: hashes only. */
function wireOf(tree: ManifestTree): WireTree {
  return {
    files: tree.files.map((f) => ({ nameHash: f.nameHash, contentHash: f.contentHash })),
    subdirs: tree.subdirs.map((d) => ({ nameHash: d.nameHash, tree: wireOf(d) })),
  };
}

describe('properties', () => {
  it('the readers never throw on arbitrary bytes; a failure names an offset inside the payload', () => {
    const hostile = fc.oneof(
      fc.uint8Array({ maxLength: 64 }),
      // Valid headers with arbitrary bodies reach the tree reader.
      fc
        .tuple(fc.constantFrom(0x20, 0x21), fc.integer({ min: 0, max: 0xff }), fc.uint8Array({ maxLength: 300 }))
        .map(([op, round, rest]) => Uint8Array.of(op, round, ...rest)),
    );
    fc.assert(
      fc.property(hostile, (payload) => {
        for (const result of [parseChecksumRequest(payload), parseChecksumResponse(payload)]) {
          if (!result.ok) {
            expect(result.error.offset).toBeGreaterThanOrEqual(0);
            expect(result.error.offset).toBeLessThanOrEqual(payload.length);
            expect(result.error.reason.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('build then parse round-trips random manifests, and every answer matches its round', () => {
    fc.assert(
      fc.property(manifestArb, (manifest) => {
        expect(manifestProblem(manifest)).toBeNull();
        for (const round of manifest.rounds) {
          const request = parseChecksumRequest(checksumRequestPayload(round));
          expect(request).toEqual({
            ok: true,
            value: { round: round.round, dir: round.dir, filter: round.filter, recursive: round.recursive },
          });
          const response = parseChecksumResponse(checksumResponsePayload(manifest, round));
          if (!response.ok) throw new Error(response.error.reason);
          expect(response.value).toEqual({
            round: round.round,
            refHash: round.round === 0 ? manifest.refHash : null,
            dirHash: round.dirHash,
            tree: wireOf(round.tree),
          });
          expect(responseMismatch(manifest, round, response.value)).toBeNull();
        }
        expect(joinSteps(manifest).length).toBe(2 * manifest.rounds.length + 5);
      }),
      { numRuns: 300 },
    );
  });
});
