// The text a live peer prints for its conformance rules: one line per rule,
// then for a failing rule its earliest evidence (time, seq, detail, hex); a
// rule that checked nothing says so and why.
import type { Evidence } from './judge.js';
import type { ConformanceEvaluation, ConformanceResult } from './evaluate.js';
import { countVerdicts, countsText, failedUnexercised, keepaliveRepeatsText, notExercisedMessage } from './verdict.js';
import { STATUS_WORD } from '../verdict.js';

/** Datagram bytes quoted per evidence line in text (the JSON and JUnit keep up to MAX_HEX_BYTES). */
const TEXT_HEX_BYTES = 48;

/** Evidence lines shown per failing rule (the result keeps up to MAX_EVIDENCE). */
export const TEXT_EVIDENCE_LINES = 5;

/** "PASS ack-within: Every … (checked 12, violations 0)"; "NOT EXERCISED fragment-acks: Every … (checked 0 events: we sent no fragments)". */
export function ruleLine(result: ConformanceResult): string {
  if (result.status === 'not-exercised')
    return `${STATUS_WORD[result.status]} ${result.name}: ${result.title} (${notExercisedMessage(result.reason ?? '')})`;
  const extra = [
    result.skipped ? `skipped ${result.skipped}` : '',
    result.untracked ? `untracked ${result.untracked}` : '',
  ].filter(Boolean);
  const counts = [`checked ${result.checked}`, `violations ${result.violations}`, ...extra].join(', ');
  const keepalives = result.keepaliveRepeats ? `; ${keepaliveRepeatsText(result.rule, result.keepaliveRepeats)}` : '';
  return `${STATUS_WORD[result.status]} ${result.name}: ${result.title} (${counts}${keepalives})`;
}

/** "t=1.234 s conn 1 seq 5 frag 1: <detail>" and the datagram's hex on the next line. */
export function evidenceLines(evidence: Evidence, indent = '    '): string[] {
  const frag = evidence.fragIndex === undefined ? '' : ` frag ${evidence.fragIndex}`;
  const line = `${indent}t=${evidence.timeS.toFixed(3)} s conn ${evidence.connection} seq ${evidence.seq}${frag}: ${evidence.detail}`;
  if (evidence.hex === '') return [line];
  const bytes = evidence.hex.split(' ');
  const shown =
    bytes.length > TEXT_HEX_BYTES
      ? `${bytes.slice(0, TEXT_HEX_BYTES).join(' ')} … (${bytes.length} bytes; --json has them all)`
      : evidence.hex;
  return [line, `${indent}  hex: ${shown}`];
}

/**
 * One line per rule, evidence under each failure, and a closing count line;
 * given the evaluation's log counts, that line names the datagrams and the skipped ones.
 */
export function renderConformanceText(
  results: readonly ConformanceResult[],
  log?: Omit<ConformanceEvaluation, 'rules' | 'counts' | 'counterpartSilent'>,
  maxEvidence = TEXT_EVIDENCE_LINES,
): string {
  const lines: string[] = [];
  for (const rule of results) {
    lines.push(ruleLine(rule));
    if (failedUnexercised(rule))
      lines.push(`    not exercised, and required to be: ${notExercisedMessage(rule.reason ?? '')}`);
    if (rule.status !== 'fail') continue;
    for (const evidence of rule.evidence.slice(0, maxEvidence)) lines.push(...evidenceLines(evidence));
    const hidden = rule.violations - Math.min(rule.evidence.length, maxEvidence);
    if (hidden > 0) lines.push(`    … and ${hidden} more`);
  }
  let counts = '';
  if (log !== undefined) {
    const skipped = [
      log.undecodable > 0 ? `, ${log.undecodable} undecodable skipped` : '',
      log.untrackedRecords > 0 ? `, ${log.untrackedRecords} of untracked connections skipped` : '',
    ].join('');
    counts = `; ${log.records} datagrams on ${log.connections} connection${log.connections === 1 ? '' : 's'}${skipped}`;
  }
  lines.push(`conformance: ${countsText(countVerdicts(results), counts)}`);
  return `${lines.join('\n')}\n`;
}
