// A checksum manifest in a file of its own (`--manifest FILE`): bcsim's form or a
// hash tool's, rounds the file lacks kept as bcsim's stand-ins, and a bad file one
// line naming its JSON path. The hashes of the fixtures are made up.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/model/scenario/errors.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { MAX_MANIFEST_FILE_BYTES, readManifestFile } from '../../src/model/scenario/manifest-file.js';
import { checksumResponsePayload, parseChecksumResponse } from '../../src/model/traffic/checksum.js';
import { joinSteps } from '../../src/model/traffic/join.js';
import { DEFAULT_MANIFEST, FINAL_ROUND, findRound, manifestProblem } from '../../src/model/traffic/manifest.js';

const HASH_TOOL = 'test/scenarios/manifest-hash-tool.json';
const TWO_ROUNDS = 'test/scenarios/manifest-two-rounds.json';

const hashToolText = readFileSync(HASH_TOOL, 'utf8');
/** A fresh copy of the hash-tool fixture to break. */
const hashTool = () => JSON.parse(hashToolText);

function problem(document: unknown): string {
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  try {
    readManifestFile(text, 'm.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('the file was accepted');
}

describe("a hash tool's manifest", () => {
  const loaded = readManifestFile(hashToolText, 'vanilla.json');
  const { manifest } = loaded;

  it('is read as such: index is the round, path the directory, version_string_hash the reference hash', () => {
    expect(loaded.form).toBe('hash-tool');
    expect(manifest.refHash).toBe(0x0a0b0c0d);
    expect(manifest.rounds[0]).toEqual({
      round: 0,
      dir: 'scripts',
      filter: 'App.pyc',
      recursive: false,
      dirHash: 0x11110000,
      tree: { files: [{ name: 'App.pyc', nameHash: 0x11110001, contentHash: 0x1111c001 }], subdirs: [] },
    });
    expect(findRound(manifest, 2)?.tree.subdirs).toEqual([
      {
        name: 'Hardpoints',
        nameHash: 0x44440000,
        files: [
          { name: 'galaxy.pyc', nameHash: 0x44440001, contentHash: 0x4444c001 },
          { name: 'warbird.pyc', nameHash: 0x44440002, contentHash: 0x4444c002 },
        ],
        subdirs: [],
      },
    ]);
    expect(manifestProblem(manifest)).toBeNull();
  });

  it('keeps round 0xFF, which it does not list, as bcsim stands it in, and says so', () => {
    expect(loaded.rounds).toEqual([
      { round: 0, from: 'file' },
      { round: 1, from: 'file' },
      { round: 2, from: 'file' },
      { round: 3, from: 'file' },
      { round: FINAL_ROUND, from: 'stand-in' },
    ]);
    expect(manifest.rounds.at(-1)).toEqual(findRound(DEFAULT_MANIFEST, FINAL_ROUND));
    // Five requests, as a stock server asks them: the join is built from it.
    expect(joinSteps(manifest).filter((s) => s.round !== undefined)).toHaveLength(5);
  });

  it("answers with the file's hashes, the reference hash in round 0", () => {
    const r0 = parseChecksumResponse(checksumResponsePayload(manifest, manifest.rounds[0]));
    expect(r0.ok && r0.value).toEqual({
      round: 0,
      refHash: 0x0a0b0c0d,
      dirHash: 0x11110000,
      tree: { files: [{ nameHash: 0x11110001, contentHash: 0x1111c001 }], subdirs: [] },
    });
    const r2 = parseChecksumResponse(checksumResponsePayload(manifest, manifest.rounds[2]));
    expect(r2.ok && r2.value.tree.subdirs[0].tree.files[1]).toEqual({ nameHash: 0x44440002, contentHash: 0x4444c002 });
  });

  it('takes each round it lacks from the stand-ins, after its own, 0xFF last', () => {
    const doc = hashTool();
    doc.directories = [doc.directories[2], doc.directories[0]];
    const partial = readManifestFile(JSON.stringify(doc), 'm.json');
    expect(partial.rounds).toEqual([
      { round: 2, from: 'file' },
      { round: 0, from: 'file' },
      { round: 1, from: 'stand-in' },
      { round: 3, from: 'stand-in' },
      { round: FINAL_ROUND, from: 'stand-in' },
    ]);
    expect(partial.manifest.rounds[2]).toEqual(findRound(DEFAULT_MANIFEST, 1));
  });

  it('a round 0xFF it lists is its own, asked last', () => {
    const doc = hashTool();
    doc.directories.splice(1, 0, { ...doc.directories[3], index: 255 });
    const listed = readManifestFile(JSON.stringify(doc), 'm.json');
    expect(listed.rounds.map((r) => r.round)).toEqual([0, 1, 2, 3, FINAL_ROUND]);
    expect(listed.rounds.every((r) => r.from === 'file')).toBe(true);
    expect(listed.manifest.rounds[4].dirHash).toBe(0x55550000);
  });
});

describe("bcsim's own form", () => {
  const scenario = loadScenario(TWO_ROUNDS);

  it('a whole scenario gives its traffic.manifest, every round from the file', () => {
    const loaded = readManifestFile(readFileSync(TWO_ROUNDS, 'utf8'), 'two.json');
    expect(loaded.form).toBe('bcsim');
    expect(loaded.manifest).toEqual(scenario.traffic.manifest);
    expect(loaded.rounds).toEqual([
      { round: 0, from: 'file' },
      { round: 7, from: 'file' },
      { round: FINAL_ROUND, from: 'file' },
    ]);
  });

  it('a bare traffic.manifest value reads the same', () => {
    const bare = JSON.parse(readFileSync(TWO_ROUNDS, 'utf8')).traffic.manifest;
    expect(readManifestFile(JSON.stringify(bare), 'bare.json').manifest).toEqual(scenario.traffic.manifest);
  });
});

describe('a bad manifest file is one line: the file, the JSON path, the reason', () => {
  const cases: Array<[string, (doc: ReturnType<typeof hashTool>) => unknown, RegExp]> = [
    [
      'a hash that is not hex',
      (d) => {
        d.directories[2].files[1].content_hash = '0xF8A0A7G0';
        return d;
      },
      /^m\.json: directories\[2\]\.files\[1\]\.content_hash: expected a u32 hash: a "0x…" hex string of 1 to 8 digits, got "0xF8A0A7G0"$/,
    ],
    [
      'a hash as a plain number',
      (d) => {
        d.directories[0].dir_name_hash = 4171278184;
        return d;
      },
      /^m\.json: directories\[0\]\.dir_name_hash: expected a u32 hash: .*, got 4171278184$/,
    ],
    [
      'a hash of 9 digits',
      (d) => {
        d.version_string_hash = '0x100000000';
        return d;
      },
      /^m\.json: version_string_hash: expected a u32 hash/,
    ],
    [
      'a missing hash',
      (d) => {
        delete d.directories[2].subdirs[0].name_hash;
        return d;
      },
      /^m\.json: directories\[2\]\.subdirs\[0\]\.name_hash: expected a u32 hash: .*, but it is missing$/,
    ],
    [
      'a round number past 255',
      (d) => {
        d.directories[1].index = 256;
        return d;
      },
      /^m\.json: directories\[1\]\.index: expected a round number 0\.\.255, got 256$/,
    ],
    [
      'a round listed twice',
      (d) => {
        d.directories[3].index = 1;
        return d;
      },
      /^m\.json: directories\[3\]\.index: round 1 is listed twice \(also directories\[1\]\)$/,
    ],
    [
      'subdirectories in a round that is not recursive',
      (d) => {
        d.directories[2].recursive = false;
        return d;
      },
      /^m\.json: directories\[2\]\.subdirs: a directory that is not recursive is answered without subdirectories/,
    ],
    [
      'no directories',
      (d) => {
        d.directories = [];
        return d;
      },
      /^m\.json: directories: expected at least one directory, got 0 items$/,
    ],
    [
      'eight rounds, and the stand-in 0xFF would be a ninth',
      (d) => {
        d.directories = Array.from({ length: 8 }, (_, i) => ({ ...d.directories[3], index: 10 + i }));
        return d;
      },
      /^m\.json: directories: 8 rounds and bcsim's stand-in for round 0, 1, 2, 3, 0xFF make 13, more than the 8 a manifest may have$/,
    ],
    [
      'more files than a manifest holds',
      (d) => {
        const many = Array.from({ length: 2100 }, (_, i) => ({
          filename: `f${i}.pyc`,
          name_hash: '0x1',
          content_hash: '0x2',
        }));
        d.directories[2].files = many;
        d.directories[3].files = many;
        return d;
      },
      /^m\.json: directories\[3\]\.files: more than 4096 files in the manifest$/,
    ],
    [
      'subdirectories nested too deep',
      (d) => {
        let inner = { name: 'deep', name_hash: '0x9', files: [], subdirs: [] as unknown[] };
        for (let i = 0; i < 9; i++) inner = { name: `d${i}`, name_hash: '0x9', files: [], subdirs: [inner] };
        d.directories[2].subdirs = [inner];
        return d;
      },
      /^m\.json: directories\[2\](\.subdirs\[0\]){9}: nested deeper than 8 directories$/,
    ],
    ['not an object', () => [1, 2], /^m\.json: expected a checksum manifest: .*, got an array$/],
    ['neither form', () => ({ name: 'x' }), /^m\.json: expected a checksum manifest: bcsim's/],
    [
      'a scenario without a manifest',
      () => ({ name: 'x', traffic: { phases: ['join'] } }),
      /^m\.json: traffic\.manifest: the scenario declares no checksum manifest$/,
    ],
    [
      "bcsim's form without the final round",
      () => ({ rounds: [{ round: 0, dir: 'scripts/', filter: 'App.pyc', recursive: false, tree: {} }] }),
      /^m\.json: rounds\[0\]\.round: the last round must be 0xFF/,
    ],
    [
      "bcsim's form with a bad hash",
      () => ({ rounds: [{ round: 255, dir: 's', filter: '*', recursive: false, dirHash: 'x', tree: {} }] }),
      /^m\.json: rounds\[0\]\.dirHash: expected a u32 hash/,
    ],
    [
      "bcsim's form with an unknown key",
      () => ({ rounds: [{ round: 255, dir: 's', filter: '*', recursive: false, tree: {}, path: 's' }] }),
      /^m\.json: rounds\[0\]\.path: unknown key "path"$/,
    ],
    [
      "a scenario's manifest with a bad round",
      () => ({
        traffic: { manifest: { rounds: [{ round: 300, dir: 's', filter: '*', recursive: false, tree: {} }] } },
      }),
      /^m\.json: traffic\.manifest\.rounds\[0\]\.round: expected a round number 0\.\.255/,
    ],
  ];
  for (const [what, edit, message] of cases) it(what, () => expect(problem(edit(hashTool()))).toMatch(message));

  it('text that is not JSON, and a duplicate key', () => {
    expect(problem('{"directories": [}')).toMatch(/^m\.json: invalid JSON: /);
    expect(problem('{"directories": [{"index": 0, "index": 1}]}')).toMatch(
      /^m\.json: directories\[0\]: duplicate key "index" at line 1, column \d+$/,
    );
  });

  it(`a file over ${MAX_MANIFEST_FILE_BYTES} bytes is refused before it is parsed`, () => {
    const padded = `${hashToolText.slice(0, -2)}, "pad": "${' '.repeat(MAX_MANIFEST_FILE_BYTES)}" }`;
    expect(problem(padded)).toMatch(
      /^m\.json: the file is 4,19[0-9,]+ bytes, more than the 4,194,304 a manifest may have$/,
    );
    // Just under the bound, the same padding is read (extra keys are the tool's business).
    const under = `${hashToolText.slice(0, -2)}, "pad": "${' '.repeat(MAX_MANIFEST_FILE_BYTES - hashToolText.length - 20)}" }`;
    expect(readManifestFile(under, 'm.json').form).toBe('hash-tool');
  });
});
