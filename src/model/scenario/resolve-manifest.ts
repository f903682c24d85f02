// traffic.manifest -> ChecksumManifest: stand-in hashes where none is declared, counts
// expanded into named files, and the rules the schema cannot express (docs/sources.md 31).
// The totals are checked while walking, before a count is expanded: a file of a few
// bytes cannot ask for millions of entries.
import {
  DEFAULT_MANIFEST,
  MAX_MANIFEST_DEPTH,
  MAX_MANIFEST_DIRS,
  MAX_MANIFEST_FILES,
  REFERENCE_HASH,
  manifestProblem,
  numberedFiles,
  standInFile,
  standInHash,
} from '../traffic/index.js';
import type { ChecksumManifest, ManifestFile, ManifestSubdir, ManifestTree } from '../traffic/index.js';
import type { ManifestInput, TreeInput } from './manifest-schema.js';

type Fail = (path: string, reason: string) => never;
type FilesInput = NonNullable<TreeInput['files']>;

const PATH = 'traffic.manifest';
/** Files given as a count are named file01.pyc, file02.pyc, … (stand-in hashes). */
const COUNTED_FILE_STEM = 'file';

export function resolveManifest(input: ManifestInput | undefined, fail: Fail): ChecksumManifest {
  if (input === undefined) return DEFAULT_MANIFEST;
  const totals = { files: 0, dirs: 0 };
  const manifest: ChecksumManifest = {
    refHash: input.refHash ?? REFERENCE_HASH,
    rounds: input.rounds.map((r, i) => ({
      round: r.round,
      dir: r.dir,
      filter: r.filter,
      recursive: r.recursive,
      dirHash: r.dirHash ?? standInHash(r.dir),
      tree: resolveTree(r.tree, `${PATH}.rounds[${i}].tree`, 0, totals, fail),
    })),
  };
  const problem = manifestProblem(manifest);
  if (problem) fail(`${PATH}.${problem.path}`, problem.reason);
  return manifest;
}

interface TreeIn {
  readonly files?: FilesInput;
  readonly subdirs?: ReadonlyArray<{
    readonly name: string;
    readonly nameHash?: number;
    readonly files?: FilesInput;
    readonly subdirs?: TreeIn['subdirs'];
  }>;
}

function resolveTree(
  input: TreeIn,
  path: string,
  depth: number,
  totals: { files: number; dirs: number },
  fail: Fail,
): ManifestTree {
  const given = input.files ?? [];
  const count = typeof given === 'number' ? given : given.length;
  if (totals.files + count > MAX_MANIFEST_FILES)
    fail(`${path}.files`, `more than ${MAX_MANIFEST_FILES} files in the manifest (${totals.files + count} so far)`);
  totals.files += count;
  const files: ManifestFile[] =
    typeof given === 'number'
      ? numberedFiles(COUNTED_FILE_STEM, given)
      : given.map((f) => {
          const standIn = standInFile(f.name);
          return {
            name: f.name,
            nameHash: f.nameHash ?? standIn.nameHash,
            contentHash: f.contentHash ?? standIn.contentHash,
          };
        });
  const subdirs: ManifestSubdir[] = (input.subdirs ?? []).map((d, i) => {
    const at = `${path}.subdirs[${i}]`;
    if (depth + 1 > MAX_MANIFEST_DEPTH) fail(at, `nested deeper than ${MAX_MANIFEST_DEPTH} directories`);
    if (++totals.dirs > MAX_MANIFEST_DIRS) fail(at, `more than ${MAX_MANIFEST_DIRS} subdirectories in the manifest`);
    return {
      name: d.name,
      nameHash: d.nameHash ?? standInHash(d.name),
      ...resolveTree(d, at, depth + 1, totals, fail),
    };
  });
  return { files, subdirs };
}
