// The shape of a hash tool's manifest file: the JSON a server's file-hashing tool
// writes for a server that checks checksum answers (OpenBC's is one). One entry of
// `directories` per checksum round; hashes are "0x…" strings. Keys the tool adds
// beside these (meta, version_string, …) are allowed and ignored.
import * as z from 'zod';
import { MAX_MANIFEST_FILES, MAX_MANIFEST_ROUNDS, MAX_SUBDIRS } from '../traffic/index.js';
import { manifestText } from './manifest-schema.js';

const HASH_MESSAGE = 'expected a u32 hash: a "0x…" hex string of 1 to 8 digits';

/** Built on first use, as the scenario schema is: start-up of every command does not pay for it. */
function buildHashToolSchema() {
  const hash = z.unknown().transform((value, ctx): number => {
    if (typeof value === 'string' && /^0[xX][0-9a-fA-F]{1,8}$/.test(value)) return Number.parseInt(value.slice(2), 16);
    ctx.addIssue({ code: 'custom', message: HASH_MESSAGE, input: value });
    return z.NEVER;
  });

  const file = z.looseObject(
    { filename: manifestText('file name'), name_hash: hash, content_hash: hash },
    { error: 'expected a file: { "filename", "name_hash", "content_hash" }' },
  );

  const files = z
    .array(file, { error: 'expected a list of files' })
    .max(MAX_MANIFEST_FILES, `expected at most ${MAX_MANIFEST_FILES} files`);

  const subdirs = () =>
    z
      .array(subdir, { error: 'expected a list of subdirectories, each { "name", "name_hash", "files", "subdirs" }' })
      .max(MAX_SUBDIRS, `expected at most ${MAX_SUBDIRS} subdirectories (a u8 count)`);

  const subdir = z.looseObject(
    {
      name: manifestText('subdirectory name'),
      name_hash: hash,
      files,
      get subdirs(): z.ZodOptional<ReturnType<typeof subdirs>> {
        return subdirs().optional();
      },
    },
    { error: 'expected a subdirectory: { "name", "name_hash", "files", "subdirs" }' },
  );

  const directory = z.looseObject(
    {
      index: z
        .number({ error: 'expected a round number 0..255' })
        .int('expected a round number 0..255')
        .min(0, 'expected a round number 0..255')
        .max(0xff, 'expected a round number 0..255'),
      path: manifestText('directory'),
      filter: manifestText('filter'),
      recursive: z.boolean({ error: 'expected true or false' }),
      dir_name_hash: hash,
      files,
      subdirs: subdirs().optional(),
    },
    { error: 'expected a directory: { "index", "path", "filter", "recursive", "dir_name_hash", "files", "subdirs" }' },
  );

  return z.looseObject({
    version_string_hash: hash,
    directories: z
      .array(directory, { error: 'expected a list of directories, one per checksum round' })
      .min(1, 'expected at least one directory')
      .max(MAX_MANIFEST_ROUNDS, `expected at most ${MAX_MANIFEST_ROUNDS} directories`),
  });
}

let built: ReturnType<typeof buildHashToolSchema> | undefined;

export function hashToolSchema(): ReturnType<typeof buildHashToolSchema> {
  built ??= buildHashToolSchema();
  return built;
}

type HashToolInput = z.output<ReturnType<typeof buildHashToolSchema>>;
export type HashToolDirectory = HashToolInput['directories'][number];
export type HashToolSubdir = NonNullable<HashToolDirectory['subdirs']>[number];
