// A checksum manifest read from a file of its own (`--manifest FILE`), in one of
// two forms: bcsim's (a traffic.manifest value, or a whole scenario that has one)
// or a hash tool's (`directories`, one per round, as a server's file-hashing tool
// writes it). A round the file does not list keeps bcsim's stand-in round of
// DEFAULT_MANIFEST: a hash tool lists the rounds it hashes (0 to 3), not 0xFF.
import type * as z from 'zod';
import {
  DEFAULT_MANIFEST,
  FINAL_ROUND,
  MAX_MANIFEST_DEPTH,
  MAX_MANIFEST_DIRS,
  MAX_MANIFEST_FILES,
  MAX_MANIFEST_ROUNDS,
  manifestProblem,
  roundLabel,
} from '../traffic/index.js';
import type { ChecksumManifest, ManifestFile, ManifestRound, ManifestSubdir } from '../traffic/index.js';
import { ScenarioError, describeValue, formatPath } from './errors.js';
import { hashToolSchema } from './hash-tool-schema.js';
import type { HashToolDirectory, HashToolSubdir } from './hash-tool-schema.js';
import { readJsonDocument } from './load.js';
import { buildManifestSchema } from './manifest-schema.js';
import { resolveManifest } from './resolve-manifest.js';

export type ManifestForm = 'bcsim' | 'hash-tool';

/** Where a round of the result comes from: the file, or bcsim's stand-in (DEFAULT_MANIFEST). */
export interface ManifestRoundSource {
  readonly round: number;
  readonly from: 'file' | 'stand-in';
}

export interface LoadedManifest {
  readonly manifest: ChecksumManifest;
  readonly form: ManifestForm;
  /** Every round of `manifest`, in its order. */
  readonly rounds: readonly ManifestRoundSource[];
}

/** A hash tool's file of the stock game is about 30 KB; this bounds what is read at all. */
export const MAX_MANIFEST_FILE_BYTES = 4 * 1024 * 1024;

const FORMS_HINT =
  'expected a checksum manifest: bcsim\'s ({ "rounds": … }, or a scenario with traffic.manifest) or a hash tool\'s ({ "directories": … })';

/** Reads a manifest file's text; `label` names it in errors (ScenarioError: label, JSON path, reason). */
export function readManifestFile(fileText: string, label: string): LoadedManifest {
  const bytes = Buffer.byteLength(fileText, 'utf8');
  if (bytes > MAX_MANIFEST_FILE_BYTES)
    throw new ScenarioError(
      label,
      '',
      `the file is ${bytes.toLocaleString('en-US')} bytes, more than the ${MAX_MANIFEST_FILE_BYTES.toLocaleString('en-US')} a manifest may have`,
    );
  const document = readJsonDocument(fileText, label);
  if (!isObject(document)) throw new ScenarioError(label, '', `${FORMS_HINT}, got ${describeValue(document)}`);
  if ('directories' in document) return hashToolManifest(document, label);
  if ('rounds' in document) return bcsimManifest(document, [], label);
  if (isObject(document.traffic) && document.traffic.manifest !== undefined)
    return bcsimManifest(document.traffic.manifest, ['traffic', 'manifest'], label);
  if ('traffic' in document)
    throw new ScenarioError(label, 'traffic.manifest', 'the scenario declares no checksum manifest');
  throw new ScenarioError(label, '', FORMS_HINT);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function bcsimManifest(value: unknown, base: readonly PropertyKey[], label: string): LoadedManifest {
  const parsed = buildManifestSchema().safeParse(value);
  if (!parsed.success) throw issueError(parsed.error.issues, value, base, label);
  // resolveManifest names paths below traffic.manifest; a bare manifest's are below its root.
  const prefix = base.length === 0 ? /^traffic\.manifest\.?/ : /^$/;
  const manifest = resolveManifest(parsed.data, (path, reason) => {
    throw new ScenarioError(label, path.replace(prefix, ''), reason);
  });
  return { manifest, form: 'bcsim', rounds: manifest.rounds.map((r) => ({ round: r.round, from: 'file' })) };
}

function hashToolManifest(document: Record<string, unknown>, label: string): LoadedManifest {
  const parsed = hashToolSchema().safeParse(document);
  if (!parsed.success) throw issueError(parsed.error.issues, document, [], label);
  const fail = (path: string, reason: string): never => {
    throw new ScenarioError(label, path, reason);
  };
  const totals = { files: 0, dirs: 0 };
  const listed = new Map<number, number>();
  const fromFile: ManifestRound[] = parsed.data.directories.map((d, i) => {
    const at = `directories[${i}]`;
    const twice = listed.get(d.index);
    if (twice !== undefined)
      fail(`${at}.index`, `round ${roundLabel(d.index)} is listed twice (also directories[${twice}])`);
    listed.set(d.index, i);
    if (!d.recursive && (d.subdirs ?? []).length > 0)
      fail(`${at}.subdirs`, 'a directory that is not recursive is answered without subdirectories: leave them out');
    return {
      round: d.index,
      dir: d.path,
      filter: d.filter,
      recursive: d.recursive,
      dirHash: d.dir_name_hash,
      tree: tree(d, at, 0, totals, fail),
    };
  });
  // The file's rounds in its order, then the stand-in rounds it lacks, and 0xFF last.
  const standIns = DEFAULT_MANIFEST.rounds.filter((r) => !listed.has(r.round));
  const rounds = [...fromFile, ...standIns].sort(
    (a, b) => Number(a.round === FINAL_ROUND) - Number(b.round === FINAL_ROUND),
  );
  if (rounds.length > MAX_MANIFEST_ROUNDS)
    fail(
      'directories',
      `${fromFile.length} rounds and bcsim's stand-in for round ${standIns.map((r) => roundLabel(r.round)).join(', ')} make ${rounds.length}, more than the ${MAX_MANIFEST_ROUNDS} a manifest may have`,
    );
  const manifest: ChecksumManifest = { refHash: parsed.data.version_string_hash, rounds };
  const problem = manifestProblem(manifest);
  if (problem) fail(problem.path, problem.reason);
  return {
    manifest,
    form: 'hash-tool',
    rounds: rounds.map((r) => ({ round: r.round, from: listed.has(r.round) ? 'file' : 'stand-in' })),
  };
}

/** A directory's or subdirectory's files and subdirectories, bounded as traffic.manifest is. */
function tree(
  d: HashToolDirectory | HashToolSubdir,
  path: string,
  depth: number,
  totals: { files: number; dirs: number },
  fail: (path: string, reason: string) => never,
): { files: ManifestFile[]; subdirs: ManifestSubdir[] } {
  totals.files += d.files.length;
  if (totals.files > MAX_MANIFEST_FILES) fail(`${path}.files`, `more than ${MAX_MANIFEST_FILES} files in the manifest`);
  const files = d.files.map((f) => ({ name: f.filename, nameHash: f.name_hash, contentHash: f.content_hash }));
  const subdirs = (d.subdirs ?? []).map((s, i): ManifestSubdir => {
    const at = `${path}.subdirs[${i}]`;
    if (depth + 1 > MAX_MANIFEST_DEPTH) fail(at, `nested deeper than ${MAX_MANIFEST_DEPTH} directories`);
    if (++totals.dirs > MAX_MANIFEST_DIRS) fail(at, `more than ${MAX_MANIFEST_DIRS} subdirectories in the manifest`);
    return { name: s.name, nameHash: s.name_hash, ...tree(s, at, depth + 1, totals, fail) };
  });
  return { files, subdirs };
}

/** The first issue (in path order, so the choice does not depend on zod's), as one line. */
function issueError(
  issues: readonly z.core.$ZodIssue[],
  document: unknown,
  base: readonly PropertyKey[],
  label: string,
): ScenarioError {
  const issue = [...issues]
    .map((i) => ({ i, key: formatPath(i.path) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))[0].i;
  const value = valueAt(document, issue.path);
  const reason =
    issue.code === 'unrecognized_keys'
      ? `unknown key "${issue.keys[0]}"`
      : value === undefined
        ? `${issue.message}, but it is missing`
        : `${issue.message}, got ${Array.isArray(value) ? `${value.length.toLocaleString('en-US')} items` : describeValue(value)}`;
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
  return new ScenarioError(label, formatPath([...base, ...path]), reason);
}

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let node = document;
  for (const key of path) {
    // bcsim's form takes a file as its bare name ("App.pyc" is { "name": "App.pyc" }).
    if (typeof node === 'string' && key === 'name') return node;
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
