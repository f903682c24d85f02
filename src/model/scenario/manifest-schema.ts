// The shape of traffic.manifest, the checksum rounds of every join (docs/sources.md 31).
// Shapes and bounds only; stand-in hashes, the totals and the round rules (last round
// 0xFF, no round twice) are resolved in resolve-manifest.ts.
import * as z from 'zod';
import { MAX_MANIFEST_FILES, MAX_MANIFEST_ROUNDS, MAX_MANIFEST_TEXT_CHARS, MAX_SUBDIRS } from '../traffic/index.js';

const HASH_MESSAGE = 'expected a u32 hash: a whole number 0..4294967295 or a "0x…" hex string of 1 to 8 digits';
const ROUND_MESSAGE = 'expected a round number 0..255 (0xFF is the last round), or a "0x…" hex string';
const FILES_MESSAGE = `expected a list of files (names, or { "name", "nameHash", "contentHash" }) or a count 0..${MAX_MANIFEST_FILES}`;

/** A whole number 0..max, or "0x" and 1..digits hex digits. */
function wireInt(max: number, digits: number, message: string) {
  const hex = new RegExp(`^0[xX][0-9a-fA-F]{1,${digits}}$`);
  return z.unknown().transform((value, ctx): number => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max) return value;
    if (typeof value === 'string' && hex.test(value) && Number.parseInt(value.slice(2), 16) <= max)
      return Number.parseInt(value.slice(2), 16);
    ctx.addIssue({ code: 'custom', message, input: value });
    return z.NEVER;
  });
}

/** A non-empty name or path of at most MAX_MANIFEST_TEXT_CHARS characters. */
export function manifestText(noun: string) {
  return z
    .string({ error: `expected a ${noun}` })
    .min(1, `expected a non-empty ${noun}`)
    .max(MAX_MANIFEST_TEXT_CHARS, `expected a ${noun} of at most ${MAX_MANIFEST_TEXT_CHARS} characters`);
}

export function buildManifestSchema() {
  const hash = wireInt(0xffffffff, 8, HASH_MESSAGE);
  const name = manifestText('name');

  /** "App.pyc" is { "name": "App.pyc" }: both hashes are the stand-in. */
  const file = z.preprocess(
    (value) => (typeof value === 'string' ? { name: value } : value),
    z.strictObject(
      { name, nameHash: hash.optional(), contentHash: hash.optional() },
      { error: 'expected a file name, or { "name", "nameHash", "contentHash" }' },
    ),
  );
  const fileList = z
    .array(file, { error: FILES_MESSAGE })
    .max(MAX_MANIFEST_FILES, `expected at most ${MAX_MANIFEST_FILES} files`);

  // A count, or a list: a union would report a bad entry as "Invalid input" at the list,
  // so the list is checked here and its issues keep their own paths (files[3].nameHash).
  const files = z.unknown().transform((value, ctx): number | z.output<typeof fileList> => {
    if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= 0 && value <= MAX_MANIFEST_FILES) return value;
      ctx.addIssue({ code: 'custom', message: FILES_MESSAGE, input: value });
      return z.NEVER;
    }
    const parsed = fileList.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as z.core.$ZodRawIssue);
    return z.NEVER;
  });

  const subdirs = () =>
    z
      .array(subdir, { error: 'expected a list of subdirectories, each { "name", "files", "subdirs" }' })
      .max(MAX_SUBDIRS, `expected at most ${MAX_SUBDIRS} subdirectories (a u8 count)`);
  const subdir = z.strictObject({
    name,
    nameHash: hash.optional(),
    files: files.optional(),
    get subdirs(): z.ZodOptional<ReturnType<typeof subdirs>> {
      return subdirs().optional();
    },
  });

  const round = z.strictObject({
    round: wireInt(0xff, 2, ROUND_MESSAGE),
    dir: manifestText('directory'),
    filter: manifestText('filter'),
    recursive: z.boolean({ error: 'expected true or false' }),
    dirHash: hash.optional(),
    tree: z.strictObject({ files: files.optional(), subdirs: subdirs().optional() }),
  });

  return z.strictObject({
    refHash: hash.optional(),
    rounds: z
      .array(round, { error: 'expected a list of checksum rounds' })
      .min(1, 'expected at least one round (the last is 0xFF)')
      .max(MAX_MANIFEST_ROUNDS, `expected at most ${MAX_MANIFEST_ROUNDS} rounds`),
  });
}

export type ManifestInput = z.output<ReturnType<typeof buildManifestSchema>>;
export type TreeInput = ManifestInput['rounds'][number]['tree'];
