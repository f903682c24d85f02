// `--pcap FILE [--pcap-plaintext]` of run, trace and compare. Its own module, so that
// `run` loads the capture only when asked for one.
import { resolve } from 'node:path';
import { captureTargetProblem } from '../analysis/capture/index.js';
import { UsageError, writingTo } from './io.js';

/** `--pcap FILE [--pcap-plaintext]`, checked before anything runs: the absolute target, or undefined without --pcap. */
export function pcapFlag(flags: { pcap?: string; pcapPlaintext?: boolean }, cwd: string): string | undefined {
  if (flags.pcap === undefined) {
    if (flags.pcapPlaintext) throw new UsageError('--pcap-plaintext: only with --pcap FILE');
    return undefined;
  }
  const label = `--pcap ${flags.pcap === '' ? "''" : flags.pcap}`;
  const problem = writingTo(label, () => captureTargetProblem(flags.pcap as string, cwd));
  if (problem !== undefined) throw new UsageError(`${label}: ${problem}`);
  return resolve(cwd, flags.pcap);
}
