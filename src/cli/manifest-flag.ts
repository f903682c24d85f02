// `--manifest FILE`: the checksum manifest a live command answers (or asks) from,
// in bcsim's form or a hash tool's, in place of the scenario's traffic.manifest.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_MANIFEST_FILE_BYTES, ScenarioError, readManifestFile } from '../model/scenario/index.js';
import type { LoadedManifest, Scenario } from '../model/scenario/index.js';
import { roundLabel } from '../model/traffic/index.js';
import { UsageError } from './io.js';
import { fileErrorText } from '../core/files/index.js';

/** A manifest file as the user named it, and what it gave. */
export interface ManifestFlag extends LoadedManifest {
  /** The path as typed. */
  readonly file: string;
}

/** Reads `--manifest FILE` (relative to `cwd`); null without the flag. Any problem is one UsageError line. */
export function manifestFlag(file: string | undefined, cwd: string): ManifestFlag | null {
  if (file === undefined) return null;
  const path = resolve(cwd, file);
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_MANIFEST_FILE_BYTES)
      throw new UsageError(
        `--manifest ${file}: the file is ${size.toLocaleString('en-US')} bytes, more than the ${MAX_MANIFEST_FILE_BYTES.toLocaleString('en-US')} a manifest may have`,
      );
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--manifest ${file}: cannot read: ${fileErrorText(error)}`);
  }
  try {
    return { file, ...readManifestFile(text, file) };
  } catch (error) {
    if (error instanceof ScenarioError) throw new UsageError(`--manifest ${error.message}`);
    throw error;
  }
}

/** The scenario with the manifest's rounds in place of its own. */
export function withManifest(scenario: Scenario, flag: ManifestFlag | null): Scenario {
  return flag === null ? scenario : { ...scenario, traffic: { ...scenario.traffic, manifest: flag.manifest } };
}

/**
 * "manifest vanilla.json (hash-tool form)<, detail>: rounds 0, 1, 2, 3 from the file; round 0xFF is not in it
 * and <standIn>": which rounds are the file's and which bcsim's stand-ins. `standIn` says, in the plural when
 * `many`, what a stand-in round does for the command.
 */
export function manifestNote(flag: ManifestFlag, standIn: (many: boolean) => string, detail = ''): string {
  const labels = (from: 'file' | 'stand-in') =>
    flag.rounds.filter((r) => r.from === from).map((r) => roundLabel(r.round));
  const own = labels('file');
  const standIns = labels('stand-in');
  const head = `manifest ${flag.file} (${flag.form} form)${detail === '' ? '' : `, ${detail}`}: ${own.length === 1 ? 'round' : 'rounds'} ${own.join(', ')} from the file`;
  if (standIns.length === 0) return head;
  const many = standIns.length > 1;
  return `${head}; ${many ? 'rounds' : 'round'} ${standIns.join(', ')} ${many ? 'are' : 'is'} not in it and ${standIn(many)}`;
}
