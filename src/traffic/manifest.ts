// The checksum manifest (DECISIONS.md 31): which directory and filter each
// checksum round asks for, and the file tree a client answers with. A scenario
// declares it (traffic.manifest); without one, DEFAULT_MANIFEST reproduces the
// measured join: the captured round-0 bytes, and responses of the measured sizes
// (round 1: 22 bytes, round 2: ~1,000 payload bytes in 3 fragments, round 3: 46,
// round 0xFF: 273, DECISIONS.md "Join sequence on loopback").
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
  /** Carried by the round-0 response alone (DECISIONS.md 31). */
  readonly refHash: number;
  /** In the order the server asks them: 0, 1, 2, 3, then 0xFF. */
  readonly rounds: readonly ManifestRound[];
}

/** The final round (DECISIONS.md 31). */
export const FINAL_ROUND = 0xff;
/** The round-0 reference hash every client sends (DECISIONS.md 31). */
export const REFERENCE_HASH = 0x7e0ce243;
/** Explicit bounds on a declared manifest (a scenario file is user input). */
export const MAX_MANIFEST_ROUNDS = 8;
export const MAX_MANIFEST_FILES = 4096;
export const MAX_MANIFEST_DEPTH = 8;
/** A directory's subdirectory count is a u8 on the wire. */
export const MAX_SUBDIRS = 255;
/** A directory's file count is a u16 on the wire. */
export const MAX_FILES_PER_DIR = 65535;

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

function round(round: number, dir: string, filter: string, recursive: boolean, tree: ManifestTree, dirHash = standInHash(dir)): ManifestRound {
  return { round, dir, filter, recursive, dirHash, tree };
}

/**
 * The default manifest. Rounds 0 and 2 ask what the captured requests ask
 * (DECISIONS.md "Real packets"); round 0's answer is the captured one, byte for
 * byte. The other rounds' directories are the ones whose request lengths match
 * the measured sizes (32, 33 and 36 bytes), and each tree has as many entries as
 * the measured response sizes allow.
 */
export const DEFAULT_MANIFEST: ChecksumManifest = {
  refHash: REFERENCE_HASH,
  rounds: [
    // Captured: 21 00 | 43 E2 0C 7E | 2F CB AF 4D | 01 00 | 77 B6 3E 37 68 A7 A0 F8 | 00.
    round(0, 'scripts/', 'App.pyc', false, { files: [{ name: 'App.pyc', nameHash: 0x373eb677, contentHash: 0xf8a0a768 }], subdirs: [] }, 0x4dafcb2f),
    // 22 bytes on the wire: one file.
    round(1, 'scripts/', 'Autoexec.pyc', false, { files: [standInFile('Autoexec.pyc')], subdirs: [] }),
    // 1,000 payload bytes: 16 + 8 x 123 entries, so 405 + 405 + 190 in three fragments.
    round(2, 'scripts/ships', '*.pyc', true, { files: numberedFiles('ship', 63), subdirs: [subdir('Hardpoints', numberedFiles('hardpoint', 60))] }),
    // 46 bytes on the wire: four files.
    round(3, 'scripts/mainmenu', '*.pyc', false, { files: numberedFiles('menu', 4), subdirs: [] }),
    // 273 bytes on the wire (268 payload): five directories and 28 files.
    round(FINAL_ROUND, 'Scripts/Multiplayer', '*.pyc', true, {
      files: numberedFiles('multiplayer', 4),
      subdirs: [subdir('Episode', numberedFiles('episode', 4), ['Mission1', 'Mission2', 'Mission3', 'Mission4'].map((m) => subdir(m, numberedFiles(m.toLowerCase(), 5))))],
    }),
  ],
};

/** The round after `round` in the manifest's order, or null after the last. */
export function nextRound(manifest: ChecksumManifest, round: number): ManifestRound | null {
  const at = manifest.rounds.findIndex((r) => r.round === round);
  return at < 0 || at + 1 >= manifest.rounds.length ? null : manifest.rounds[at + 1];
}

export function findRound(manifest: ChecksumManifest, round: number): ManifestRound | null {
  return manifest.rounds.find((r) => r.round === round) ?? null;
}
