// A checksum answer's hashes as a user compares them with a server's manifest:
// `bcsim decode`, `bcsim analyze` and the live client's refusal line name them
// the same way, in hex as manifests write them.
import type { ChecksumResponse, WireTree } from './checksum.js';
import type { ManifestTree } from './manifest.js';
import { hashHex, roundLabel } from './checksum.js';

interface FileHashes {
  readonly nameHash: string;
  readonly contentHash: string;
}

interface SubdirHashes {
  readonly nameHash: string;
  /** Its own files, listed or not. */
  readonly fileCount: number;
  readonly files: readonly FileHashes[];
  readonly subdirs: readonly SubdirHashes[];
}

export interface ChecksumAnswerHashes {
  readonly round: number;
  /** Round 0 alone carries it. */
  readonly refHash: string | null;
  readonly dirHash: string;
  readonly files: readonly FileHashes[];
  readonly subdirs: readonly SubdirHashes[];
  /** Files and subdirectories at every depth, listed or not. */
  readonly fileCount: number;
  readonly subdirCount: number;
  /** Files past the listing bound (the later ones, in tree order): counted, not listed. */
  readonly filesNotListed: number;
}

/** The answer's hashes in hex, listing at most `maxFiles` files (tree order). */
export function checksumAnswerHashes(
  response: ChecksumResponse,
  maxFiles = Number.POSITIVE_INFINITY,
): ChecksumAnswerHashes {
  const budget = { left: maxFiles, notListed: 0, files: 0, subdirs: 0 };
  const tree = listTree(response.tree, budget);
  return {
    round: response.round,
    refHash: response.refHash === null ? null : hashHex(response.refHash),
    dirHash: hashHex(response.dirHash),
    files: tree.files,
    subdirs: tree.subdirs,
    fileCount: budget.files,
    subdirCount: budget.subdirs,
    filesNotListed: budget.notListed,
  };
}

interface Budget {
  left: number;
  notListed: number;
  files: number;
  subdirs: number;
}

function listTree(tree: WireTree, budget: Budget): Omit<SubdirHashes, 'nameHash'> {
  const files: FileHashes[] = [];
  for (const f of tree.files) {
    budget.files++;
    if (budget.left <= 0) {
      budget.notListed++;
      continue;
    }
    budget.left--;
    files.push({ nameHash: hashHex(f.nameHash), contentHash: hashHex(f.contentHash) });
  }
  const subdirs = tree.subdirs.map((d) => {
    budget.subdirs++;
    return { nameHash: hashHex(d.nameHash), ...listTree(d.tree, budget) };
  });
  return { fileCount: tree.files.length, files, subdirs };
}

/** "round 0: ref 0x7E0CE243, dir 0x4DAFCB2F, 1 file" (files at every depth, then subdirectories): the answer's head. */
export function checksumAnswerHead(a: ChecksumAnswerHashes): string {
  const ref = a.refHash === null ? '' : `ref ${a.refHash}, `;
  const subdirs = a.subdirCount === 0 ? '' : `, ${plural(a.subdirCount, 'subdirectory', 'subdirectories')}`;
  return `round ${roundLabel(a.round)}: ${ref}dir ${a.dirHash}, ${plural(a.fileCount, 'file', 'files')}${subdirs}`;
}

/**
 * The answer's files one a line, each subdirectory before its own files, at most
 * `maxLines` lines; then "… N more" for what did not fit.
 */
export function checksumAnswerLines(a: ChecksumAnswerHashes, indent: string, maxLines: number): string[] {
  const lines: string[] = [];
  let filesLeft = a.fileCount;
  let subdirsLeft = a.subdirCount;
  const walk = (tree: Pick<SubdirHashes, 'files' | 'subdirs'>, depth: number): boolean => {
    const pad = indent + '  '.repeat(depth);
    for (const f of tree.files) {
      if (lines.length >= maxLines) return false;
      lines.push(`${pad}file name ${f.nameHash} content ${f.contentHash}`);
      filesLeft--;
    }
    for (const d of tree.subdirs) {
      if (lines.length >= maxLines) return false;
      lines.push(`${pad}subdirectory name ${d.nameHash}, ${plural(d.fileCount, 'file', 'files')}`);
      subdirsLeft--;
      if (!walk(d, depth + 1)) return false;
    }
    return true;
  };
  walk(a, 0);
  const more = [
    filesLeft > 0 ? plural(filesLeft, 'more file', 'more files') : '',
    subdirsLeft > 0 ? plural(subdirsLeft, 'more subdirectory', 'more subdirectories') : '',
  ].filter(Boolean);
  if (more.length > 0) lines.push(`${indent}… ${more.join(' and ')}`);
  return lines;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Files a sentence names; the rest are counted. */
const NAMED_FILES = 3;

/**
 * "ref 0x…, dir 0x…, App.pyc name 0x… content 0x…": an answer's hashes in one clause,
 * its files named from `names` (the manifest's tree of that round) where the shapes agree.
 */
export function answerHashesText(response: ChecksumResponse, names: ManifestTree | null): string {
  const parts = response.refHash === null ? [] : [`ref ${hashHex(response.refHash)}`];
  parts.push(`dir ${hashHex(response.dirHash)}`);
  const files: string[] = [];
  let total = 0;
  const walk = (t: WireTree, known: ManifestTree | null, prefix: string) => {
    t.files.forEach((f, i) => {
      total++;
      if (files.length >= NAMED_FILES) return;
      const name = known?.files.length === t.files.length ? `${prefix}${known.files[i].name}` : `file ${total}`;
      files.push(`${name} name ${hashHex(f.nameHash)} content ${hashHex(f.contentHash)}`);
    });
    t.subdirs.forEach((d, i) => {
      const sub = known?.subdirs.length === t.subdirs.length ? known.subdirs[i] : null;
      walk(d.tree, sub, sub === null ? prefix : `${prefix}${sub.name}/`);
    });
  };
  walk(response.tree, names, '');
  if (total === 0) parts.push('no files');
  parts.push(...files);
  if (total > files.length) parts.push(`and ${total - files.length} more files`);
  return parts.join(', ');
}
