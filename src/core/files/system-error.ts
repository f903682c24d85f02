// Words for the refusals of the operating system: a user who typed a path reads
// "no such file", never Node's ENOENT.
import { getSystemErrorMap } from 'node:util';

/** What each refusal a typed path can meet means, in the words bcsim's messages use. */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'a read-only filesystem',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'over the disk quota',
  EFBIG: 'the file is too large',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'a loop of symbolic links',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EBUSY: 'busy',
  ETXTBSY: 'busy',
  EEXIST: 'already exists',
  EIO: 'an input/output error',
  ENXIO: 'no such device',
  ENODEV: 'no such device',
  EXDEV: 'on another filesystem',
  EAGAIN: 'nothing to read yet',
  EPIPE: 'the reader has gone',
};

/**
 * Words for a system error (one with a code such as ENOENT); undefined for any
 * other error. `writing`: a missing path is its folder, not the file itself.
 */
export function systemErrorWords(error: unknown, writing = false): string | undefined {
  const { code, errno } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return undefined;
  if (writing && code === 'ENOENT') return 'its folder does not exist';
  // libuv knows every other code, in its own words ("connection refused").
  return (
    WORDS[code] ?? (errno === undefined ? undefined : getSystemErrorMap().get(errno)?.[1]) ?? 'refused by the system'
  );
}

/** A failed file operation in words: the system's refusal, or the error's own message. */
export function fileErrorText(error: unknown, writing = false): string {
  return systemErrorWords(error, writing) ?? (error instanceof Error ? error.message : String(error));
}
