// The checksum manifest (docs/sources.md 31): which directory and filter each
// checksum round asks for, and the file tree a client answers with. A scenario
// declares it (traffic.manifest); without one, DEFAULT_MANIFEST reproduces the
// measured join: the captured round-0 bytes, and responses of the measured sizes
// (round 1: 22 bytes, round 2: ~1,000 payload bytes in 3 fragments, round 3: 46,
// round 0xFF: 273, docs/sources.md J1).
//
// The stock game's string and file hashes are not in the specification, so a
// name or file without a declared hash gets bcsim's stand-in, FNV-1a over its
// UTF-8 bytes. A server that validates against real game files needs the real
// hashes declared in the manifest; a permissive server only parses the tree.

/** A file in a round's tree. Hashes are u32; missing ones are the stand-in hash. */
export interface ManifestFile {
  readonly name: string;
  readonly nameHash: number;
  readonly contentHash: number;
}

/** A directory's tree: its files, then its subdirectories (named, each with its own tree). */
export interface ManifestTree {
  readonly files: readonly ManifestFile[];
  readonly subdirs: readonly ManifestSubdir[];
}

export interface ManifestSubdir extends ManifestTree {
  readonly name: string;
  readonly nameHash: number;
}

/** One checksum round: the request's fields and the answer's tree. */
export interface ManifestRound {
  readonly round: number;
  readonly dir: string;
  readonly filter: string;
  readonly recursive: boolean;
  readonly dirHash: number;
  readonly tree: ManifestTree;
}

export interface ChecksumManifest {
  /** Carried by the round-0 response alone (docs/sources.md 31). */
  readonly refHash: number;
  /** In the order the server asks them: 0, 1, 2, 3, then 0xFF. */
  readonly rounds: readonly ManifestRound[];
}

/** The final round (docs/sources.md 31). */
export const FINAL_ROUND = 0xff;
/** The round-0 reference hash every client sends (docs/sources.md 31). */
export const REFERENCE_HASH = 0x7e0ce243;
/** Explicit bounds on a declared manifest (a scenario file is user input). */
export const MAX_MANIFEST_ROUNDS = 8;
/** Files in the whole manifest, every round and directory together. */
export const MAX_MANIFEST_FILES = 4096;
/** Subdirectories in the whole manifest. */
export const MAX_MANIFEST_DIRS = 1024;
/** Subdirectory nesting below a round's directory. */
export const MAX_MANIFEST_DEPTH = 8;
/** A directory, filter, file or subdirectory name (the wire's u16 length allows more; nothing real is this long). */
export const MAX_MANIFEST_TEXT_CHARS = 1024;
/** A directory's subdirectory count is a u8 on the wire. */
export const MAX_SUBDIRS = 255;
/** A directory's file count is a u16 on the wire. */
const MAX_FILES_PER_DIR = 65535;

/** bcsim's stand-in for the game's string hash: 32-bit FNV-1a over UTF-8. */
export function standInHash(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** A file declared by name alone: stand-in hashes of its name and of "content:" + its name. */
export function standInFile(name: string): ManifestFile {
  return { name, nameHash: standInHash(name), contentHash: standInHash(`content:${name}`) };
}

function subdir(name: string, files: readonly ManifestFile[], subdirs: readonly ManifestSubdir[] = []): ManifestSubdir {
  return { name, nameHash: standInHash(name), files, subdirs };
}

/** `count` files named stem01.pyc, stem02.pyc, … with stand-in hashes. */
export function numberedFiles(stem: string, count: number): ManifestFile[] {
  return Array.from({ length: count }, (_, i) => standInFile(`${stem}${String(i + 1).padStart(2, '0')}.pyc`));
}

function round(
  round: number,
  dir: string,
  filter: string,
  recursive: boolean,
  tree: ManifestTree,
  dirHash = standInHash(dir),
): ManifestRound {
  return { round, dir, filter, recursive, dirHash, tree };
}

/**
 * The default manifest. Rounds 0 and 2 ask what the captured requests ask
 * (docs/sources.md R1–R3); round 0's answer is the captured one, byte for
 * byte. The other rounds' directories are the ones whose request lengths match
 * the measured sizes (32, 33 and 36 bytes), and each tree has as many entries as
 * the measured response sizes allow.
 */
export const DEFAULT_MANIFEST: ChecksumManifest = {
  refHash: REFERENCE_HASH,
  rounds: [
    // Captured: 21 00 | 43 E2 0C 7E | 2F CB AF 4D | 01 00 | 77 B6 3E 37 68 A7 A0 F8 | 00.
    round(
      0,
      'scripts/',
      'App.pyc',
      false,
      { files: [{ name: 'App.pyc', nameHash: 0x373eb677, contentHash: 0xf8a0a768 }], subdirs: [] },
      0x4dafcb2f,
    ),
    // 22 bytes on the wire: one file.
    round(1, 'scripts/', 'Autoexec.pyc', false, { files: [standInFile('Autoexec.pyc')], subdirs: [] }),
    // 1,000 payload bytes: 16 + 8 x 123 entries, so 405 + 405 + 190 in three fragments.
    round(2, 'scripts/ships', '*.pyc', true, {
      files: numberedFiles('ship', 63),
      subdirs: [subdir('Hardpoints', numberedFiles('hardpoint', 60))],
    }),
    // 46 bytes on the wire: four files.
    round(3, 'scripts/mainmenu', '*.pyc', false, { files: numberedFiles('menu', 4), subdirs: [] }),
    // 273 bytes on the wire (268 payload): five directories and 28 files.
    round(FINAL_ROUND, 'Scripts/Multiplayer', '*.pyc', true, {
      files: numberedFiles('multiplayer', 4),
      subdirs: [
        subdir(
          'Episode',
          numberedFiles('episode', 4),
          ['Mission1', 'Mission2', 'Mission3', 'Mission4'].map((m) => subdir(m, numberedFiles(m.toLowerCase(), 5))),
        ),
      ],
    }),
  ],
};

export function findRound(manifest: ChecksumManifest, round: number): ManifestRound | null {
  return manifest.rounds.find((r) => r.round === round) ?? null;
}

/** Where a manifest breaks the wire format or the bounds, as a path below the manifest and a reason. */
export interface ManifestProblem {
  readonly path: string;
  readonly reason: string;
}

const isU32 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/**
 * Is `manifest` one the join can send and a server can read (docs/sources.md 31)?
 * Null when it is; else the first problem. Rounds are u8 and unique, the last is
 * 0xFF; counts fit their u8/u16 fields; hashes are u32; everything is within the
 * MAX_MANIFEST_* bounds.
 */
export function manifestProblem(manifest: ChecksumManifest): ManifestProblem | null {
  if (!isU32(manifest.refHash)) return { path: 'refHash', reason: `${manifest.refHash} is not a u32` };
  const rounds = manifest.rounds;
  if (rounds.length === 0 || rounds.length > MAX_MANIFEST_ROUNDS)
    return { path: 'rounds', reason: `expected 1 to ${MAX_MANIFEST_ROUNDS} rounds, got ${rounds.length}` };
  const seen = new Set<number>();
  const totals = { files: 0, dirs: 0 };
  for (let i = 0; i < rounds.length; i++) {
    const r = rounds[i];
    const at = `rounds[${i}]`;
    if (!(Number.isInteger(r.round) && r.round >= 0 && r.round <= 0xff))
      return { path: `${at}.round`, reason: `${r.round} is not a round number 0..255` };
    if (seen.has(r.round)) return { path: `${at}.round`, reason: `round ${r.round} is asked twice` };
    seen.add(r.round);
    for (const key of ['dir', 'filter'] as const) {
      if (r[key].length > MAX_MANIFEST_TEXT_CHARS)
        return { path: `${at}.${key}`, reason: `longer than ${MAX_MANIFEST_TEXT_CHARS} characters` };
    }
    if (!isU32(r.dirHash)) return { path: `${at}.dirHash`, reason: `${r.dirHash} is not a u32` };
    // docs/sources.md 31: a non-recursive round's tree ends with subdirCount 0; declared subdirectories would be dropped unsaid.
    if (!r.recursive && r.tree.subdirs.length > 0)
      return {
        path: `${at}.tree.subdirs`,
        reason: 'a non-recursive round answers without subdirectories: set recursive to true, or leave them out',
      };
    const problem = treeProblem(r.tree, `${at}.tree`, 0, totals);
    if (problem) return problem;
  }
  const last = rounds[rounds.length - 1].round;
  if (last !== FINAL_ROUND)
    return {
      path: `rounds[${rounds.length - 1}].round`,
      reason: `the last round must be 0xFF (255), the one after which the server sends the settings; got ${last}`,
    };
  return null;
}

function treeProblem(
  tree: ManifestTree,
  path: string,
  depth: number,
  totals: { files: number; dirs: number },
): ManifestProblem | null {
  if (tree.files.length > MAX_FILES_PER_DIR)
    return {
      path: `${path}.files`,
      reason: `${tree.files.length} files, a directory holds at most ${MAX_FILES_PER_DIR} (u16 count)`,
    };
  if (tree.subdirs.length > MAX_SUBDIRS)
    return {
      path: `${path}.subdirs`,
      reason: `${tree.subdirs.length} subdirectories, a directory holds at most ${MAX_SUBDIRS} (u8 count)`,
    };
  totals.files += tree.files.length;
  if (totals.files > MAX_MANIFEST_FILES)
    return { path: `${path}.files`, reason: `more than ${MAX_MANIFEST_FILES} files in the manifest` };
  for (let i = 0; i < tree.files.length; i++) {
    const f = tree.files[i];
    if (f.name.length > MAX_MANIFEST_TEXT_CHARS)
      return { path: `${path}.files[${i}].name`, reason: `longer than ${MAX_MANIFEST_TEXT_CHARS} characters` };
    if (!isU32(f.nameHash) || !isU32(f.contentHash))
      return { path: `${path}.files[${i}]`, reason: 'its hashes must be u32' };
  }
  for (let i = 0; i < tree.subdirs.length; i++) {
    const d = tree.subdirs[i];
    const at = `${path}.subdirs[${i}]`;
    if (depth + 1 > MAX_MANIFEST_DEPTH)
      return { path: at, reason: `nested deeper than ${MAX_MANIFEST_DEPTH} directories` };
    if (++totals.dirs > MAX_MANIFEST_DIRS)
      return { path: at, reason: `more than ${MAX_MANIFEST_DIRS} subdirectories in the manifest` };
    if (d.name.length > MAX_MANIFEST_TEXT_CHARS)
      return { path: `${at}.name`, reason: `longer than ${MAX_MANIFEST_TEXT_CHARS} characters` };
    if (!isU32(d.nameHash)) return { path: `${at}.nameHash`, reason: `${d.nameHash} is not a u32` };
    const inner = treeProblem(d, at, depth + 1, totals);
    if (inner) return inner;
  }
  return null;
}

let defaultJson: string | undefined;

/** Is `manifest` the default, by value (a stored or cloned copy counts)? */
export function isDefaultManifest(manifest: ChecksumManifest): boolean {
  if (manifest === DEFAULT_MANIFEST) return true;
  defaultJson ??= JSON.stringify(DEFAULT_MANIFEST);
  return JSON.stringify(manifest) === defaultJson;
}
