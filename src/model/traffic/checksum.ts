// The checksum exchange's game payloads (docs/sources.md 31), built from a
// manifest and read back. Readers never throw: a payload that does not parse
// gives the offset and the reason, as the codec's decoders do.
//
// Request, server to client: [0x20][round][dirLen u16][dir][filterLen u16][filter][recursive: 0x20 / 0x21]
// Response, client to server: [0x21][round] ([refHash u32], round 0 only) [dirHash u32] tree
// Tree: [fileCount u16] {[nameHash u32][contentHash u32]} [subdirCount u8] {[nameHash u32]} {subtree}
// All integers little-endian.
import { FINAL_ROUND, MAX_MANIFEST_DEPTH, findRound, isDefaultManifest, standInHash } from './manifest.js';
import type { ChecksumManifest, ManifestRound, ManifestTree } from './manifest.js';
import { Opcode } from './payloads.js';

const RECURSIVE_FALSE = 0x20;
const RECURSIVE_TRUE = 0x21;

export interface ChecksumRequest {
  readonly round: number;
  readonly dir: string;
  readonly filter: string;
  readonly recursive: boolean;
}

/** A response's tree as read from the wire: hashes only. */
export interface WireTree {
  readonly files: ReadonlyArray<{ readonly nameHash: number; readonly contentHash: number }>;
  readonly subdirs: ReadonlyArray<{ readonly nameHash: number; readonly tree: WireTree }>;
}

export interface ChecksumResponse {
  readonly round: number;
  readonly refHash: number | null;
  readonly dirHash: number;
  readonly tree: WireTree;
}

interface PayloadError {
  readonly offset: number;
  readonly reason: string;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: PayloadError };

/** Round 0 alone carries the reference hash after its round byte (docs/sources.md 31). */
function carriesRefHash(round: number): boolean {
  return round === 0;
}

class Writer {
  private readonly bytes: number[] = [];
  u8(v: number): this {
    this.bytes.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    return this.u8(v).u8(v >>> 8);
  }
  u32(v: number): this {
    return this.u16(v & 0xffff).u16(v >>> 16);
  }
  text(s: string): this {
    const encoded = new TextEncoder().encode(s);
    this.u16(encoded.length);
    for (const b of encoded) this.u8(b);
    return this;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

export function checksumRequestPayload(round: ManifestRound): Uint8Array {
  return new Writer()
    .u8(Opcode.ChecksumRequest)
    .u8(round.round)
    .text(round.dir)
    .text(round.filter)
    .u8(round.recursive ? RECURSIVE_TRUE : RECURSIVE_FALSE)
    .done();
}

function writeTree(w: Writer, tree: ManifestTree): void {
  w.u16(tree.files.length);
  for (const f of tree.files) w.u32(f.nameHash).u32(f.contentHash);
  w.u8(tree.subdirs.length);
  for (const d of tree.subdirs) w.u32(d.nameHash);
  for (const d of tree.subdirs) writeTree(w, d);
}

export function checksumResponsePayload(manifest: ChecksumManifest, round: ManifestRound): Uint8Array {
  const w = new Writer().u8(Opcode.ChecksumResponse).u8(round.round);
  if (carriesRefHash(round.round)) w.u32(manifest.refHash);
  w.u32(round.dirHash);
  // A non-recursive round answers with its files and no subdirectories (docs/sources.md 31).
  writeTree(w, round.recursive ? round.tree : { files: round.tree.files, subdirs: [] });
  return w.done();
}

class Reader {
  pos = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  need(n: number, what: string): PayloadError | null {
    return this.pos + n <= this.bytes.length
      ? null
      : { offset: this.pos, reason: `${what} needs ${n} bytes, ${this.bytes.length - this.pos} remain` };
  }
  u8(): number {
    return this.bytes[this.pos++];
  }
  u16(): number {
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u32(): number {
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  get left(): number {
    return this.bytes.length - this.pos;
  }
  slice(n: number): Uint8Array {
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function fail<T>(offset: number, reason: string): Parsed<T> {
  return { ok: false, error: { offset, reason } };
}

export function parseChecksumRequest(payload: Uint8Array): Parsed<ChecksumRequest> {
  const r = new Reader(payload);
  const short = r.need(2, 'a checksum request header');
  if (short) return { ok: false, error: short };
  if (r.u8() !== Opcode.ChecksumRequest) return fail(0, `opcode 0x${hex(payload[0])} is not a checksum request (0x20)`);
  const round = r.u8();
  const texts: string[] = [];
  for (const what of ['dir', 'filter']) {
    const lenShort = r.need(2, `the ${what} length`);
    if (lenShort) return { ok: false, error: lenShort };
    const at = r.pos;
    const n = r.u16();
    if (n > r.left) return fail(at, `${what} length ${n} runs past the end (${r.left} bytes remain)`);
    texts.push(new TextDecoder().decode(r.slice(n)));
  }
  const flagShort = r.need(1, 'the recursive flag');
  if (flagShort) return { ok: false, error: flagShort };
  const at = r.pos;
  const flag = r.u8();
  if (flag !== RECURSIVE_TRUE && flag !== RECURSIVE_FALSE)
    return fail(at, `recursive flag 0x${hex(flag)} is neither 0x20 nor 0x21`);
  if (r.left !== 0) return fail(r.pos, `${r.left} bytes after the recursive flag`);
  return { ok: true, value: { round, dir: texts[0], filter: texts[1], recursive: flag === RECURSIVE_TRUE } };
}

/** Reads a tree, bounded in depth and in entries (hostile input). */
function readTree(r: Reader, depth: number, budget: { entries: number }): Parsed<WireTree> {
  if (depth > MAX_MANIFEST_DEPTH) return fail(r.pos, `directories nested deeper than ${MAX_MANIFEST_DEPTH}`);
  const countShort = r.need(2, 'a file count');
  if (countShort) return { ok: false, error: countShort };
  const countAt = r.pos;
  const fileCount = r.u16();
  if (fileCount * 8 > r.left)
    return fail(countAt, `file count ${fileCount} needs ${fileCount * 8} bytes, ${r.left} remain`);
  budget.entries -= fileCount;
  if (budget.entries < 0) return fail(countAt, 'more files than any manifest holds');
  const files: Array<{ nameHash: number; contentHash: number }> = [];
  for (let i = 0; i < fileCount; i++) files.push({ nameHash: r.u32(), contentHash: r.u32() });
  const subShort = r.need(1, 'a subdirectory count');
  if (subShort) return { ok: false, error: subShort };
  const subAt = r.pos;
  const subdirCount = r.u8();
  if (subdirCount * 4 > r.left)
    return fail(subAt, `subdirectory count ${subdirCount} needs ${subdirCount * 4} bytes, ${r.left} remain`);
  const names: number[] = [];
  for (let i = 0; i < subdirCount; i++) names.push(r.u32());
  const subdirs: Array<{ nameHash: number; tree: WireTree }> = [];
  for (const nameHash of names) {
    const sub = readTree(r, depth + 1, budget);
    if (!sub.ok) return sub;
    subdirs.push({ nameHash, tree: sub.value });
  }
  return { ok: true, value: { files, subdirs } };
}

export function parseChecksumResponse(payload: Uint8Array): Parsed<ChecksumResponse> {
  const r = new Reader(payload);
  const short = r.need(2, 'a checksum response header');
  if (short) return { ok: false, error: short };
  if (r.u8() !== Opcode.ChecksumResponse)
    return fail(0, `opcode 0x${hex(payload[0])} is not a checksum response (0x21)`);
  const round = r.u8();
  let refHash: number | null = null;
  if (carriesRefHash(round)) {
    const refShort = r.need(4, 'the reference hash');
    if (refShort) return { ok: false, error: refShort };
    refHash = r.u32();
  }
  const dirShort = r.need(4, 'the directory hash');
  if (dirShort) return { ok: false, error: dirShort };
  const dirHash = r.u32();
  const tree = readTree(r, 0, { entries: 65535 });
  if (!tree.ok) return tree;
  if (r.left !== 0) return fail(r.pos, `${r.left} bytes after the tree`);
  return { ok: true, value: { round, refHash, dirHash, tree: tree.value } };
}

/**
 * The answer to a request the server really sent: the manifest's round of
 * that number, or, for a round the manifest lacks, the request's own
 * directory with no files (a well-formed tree either way).
 */
export function checksumAnswer(manifest: ChecksumManifest, request: ChecksumRequest): Uint8Array {
  const round: ManifestRound = findRound(manifest, request.round) ?? {
    round: request.round,
    dir: request.dir,
    filter: request.filter,
    recursive: request.recursive,
    dirHash: standInHash(request.dir),
    tree: { files: [], subdirs: [] },
  };
  return checksumResponsePayload(manifest, round);
}

/**
 * Does a response answer `round` of the manifest exactly? Returns null when it
 * does, or the first difference (what a validating server would refuse).
 */
export function responseMismatch(
  manifest: ChecksumManifest,
  round: ManifestRound,
  response: ChecksumResponse,
): string | null {
  if (response.round !== round.round)
    return `round ${roundLabel(response.round)} where round ${roundLabel(round.round)} was asked`;
  if (carriesRefHash(round.round) && response.refHash !== manifest.refHash)
    return `reference hash ${hashHex(response.refHash ?? 0)}, expected ${hashHex(manifest.refHash)}`;
  if (response.dirHash !== round.dirHash)
    return `directory hash ${hashHex(response.dirHash)}, expected ${hashHex(round.dirHash)}`;
  return treeMismatch(
    round.recursive ? round.tree : { files: round.tree.files, subdirs: [] },
    response.tree,
    round.dir,
  );
}

function treeMismatch(want: ManifestTree, got: WireTree, path: string): string | null {
  if (got.files.length !== want.files.length)
    return `${path}: ${got.files.length} files, expected ${want.files.length}`;
  for (let i = 0; i < want.files.length; i++) {
    const w = want.files[i];
    const g = got.files[i];
    if (g.nameHash !== w.nameHash || g.contentHash !== w.contentHash)
      return `${path}: file ${i} (${w.name}) hashes ${hashHex(g.nameHash)}/${hashHex(g.contentHash)}, expected ${hashHex(w.nameHash)}/${hashHex(w.contentHash)}`;
  }
  if (got.subdirs.length !== want.subdirs.length)
    return `${path}: ${got.subdirs.length} subdirectories, expected ${want.subdirs.length}`;
  for (let i = 0; i < want.subdirs.length; i++) {
    const w = want.subdirs[i];
    const g = got.subdirs[i];
    if (g.nameHash !== w.nameHash)
      return `${path}: subdirectory ${i} (${w.name}) hash ${hashHex(g.nameHash)}, expected ${hashHex(w.nameHash)}`;
    const inner = treeMismatch(w, g.tree, `${path}/${w.name}`);
    if (inner !== null) return inner;
  }
  return null;
}

/** A round as the reports' settings show it: what is asked, how much is answered. */
interface RoundOutline {
  readonly round: string;
  readonly dir: string;
  readonly filter: string;
  readonly recursive: boolean;
  /** Files and subdirectories the answer lists, at every depth. */
  readonly files: number;
  readonly subdirs: number;
  readonly requestPayloadBytes: number;
  readonly responsePayloadBytes: number;
}

export interface ManifestOutline {
  /** True for DEFAULT_MANIFEST (the measured join), false for one a scenario declared. */
  readonly default: boolean;
  readonly refHash: string;
  readonly rounds: readonly RoundOutline[];
}

/** A manifest in a few lines: a report's settings name it without listing every file hash. */
export function manifestOutline(manifest: ChecksumManifest): ManifestOutline {
  const count = (tree: ManifestTree): { files: number; subdirs: number } =>
    tree.subdirs
      .map(count)
      .reduce((sum, inner) => ({ files: sum.files + inner.files, subdirs: sum.subdirs + inner.subdirs }), {
        files: tree.files.length,
        subdirs: tree.subdirs.length,
      });
  return {
    default: isDefaultManifest(manifest),
    refHash: `${hashHex(manifest.refHash)}`,
    rounds: manifest.rounds.map((r) => ({
      round: roundLabel(r.round),
      dir: r.dir,
      filter: r.filter,
      recursive: r.recursive,
      ...count(r.recursive ? r.tree : { files: r.tree.files, subdirs: [] }),
      requestPayloadBytes: checksumRequestPayload(r).length,
      responsePayloadBytes: checksumResponsePayload(manifest, r).length,
    })),
  };
}

export function roundLabel(round: number): string {
  return round === FINAL_ROUND ? '0xFF' : String(round);
}

function hex(v: number): string {
  return (v & 0xff).toString(16).padStart(2, '0').toUpperCase();
}

/** "0x7E0CE243": a u32 as manifests write it. */
export function hashHex(value: number): string {
  return `0x${(value >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
}
