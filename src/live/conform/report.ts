// How `bcsim conform` prints its campaign: a table of cases, evidence under
// each FAIL, the reason under each NOT EXERCISED, and the command that re-runs
// each case; or the bcsim.conform/1 JSON; or JUnit for CI.
import { deviationCountsText } from '../../core/codec/index.js';
import type { ConformReport } from './campaign.js';
import { STATUS_WORD, countsLine, verdictJunitCase, verdictJunitXml } from '../verdict.js';
import { refusalLine } from './session-end.js';
import { unreadableLine } from '../unreadable.js';

/** Evidence lines shown per failing case in text (the JSON keeps them all). */
const TEXT_EVIDENCE = 6;
/** Hex bytes quoted per evidence line in text. */
const TEXT_HEX_BYTES = 48;

const HEX_LABEL = { server: "server's datagram", us: 'our datagram' } as const;

/** The campaign's result as a CI job sees it: its exit, and the line said first. */
export interface ConformOutcome {
  readonly ok: boolean;
  /**
   * One line printed first: why the run failed; or, for a run that passed, that most of
   * the server's datagrams did not read. Null when there is nothing to say first.
   */
  readonly firstLine: string | null;
}

/** "more of the server's datagrams were unreadable than readable: …", or null when they mostly read. */
function unreadableMajority(report: ConformReport): string | null {
  const { readable, unreadable } = report.wire;
  if (unreadable.total <= readable) return null;
  return `more of the server's datagrams were unreadable than readable: ${readable} readable, unreadable ${unreadableLine(unreadable)}`;
}

/**
 * A run passes only when the server answered, no case failed, and at least one
 * case was exercised: a campaign that tested nothing never exits 0. With
 * `requireExercised`, any case not exercised fails it too.
 */
export function conformOutcome(report: ConformReport, requireExercised = false): ConformOutcome {
  const { pass, fail, notExercised } = report.counts;
  const garbage = unreadableMajority(report);
  const also = garbage === null ? '' : `; and ${garbage}`;
  if (!report.answered)
    return {
      ok: false,
      firstLine: `bcsim conform: no answer from ${report.server} — is the server running and listening there?`,
    };
  if (pass + fail === 0) {
    const why =
      report.refusal !== null
        ? `${refusalLine(report.refusal)}${also}`
        : (garbage ?? `every case said NOT EXERCISED; the first: ${report.cases[0]?.id}: ${report.cases[0]?.summary}`);
    return { ok: false, firstLine: `bcsim conform: nothing was exercised: ${why}` };
  }
  if (fail > 0) {
    const roots = report.cases.filter((c) => c.status === 'fail' && c.explainedBy === null).length;
    return {
      ok: false,
      firstLine: `bcsim conform: ${fail} case${fail === 1 ? '' : 's'} failed${roots < fail ? ` (${roots} root cause${roots === 1 ? '' : 's'}, listed first)` : ''}${also}`,
    };
  }
  if (requireExercised && notExercised > 0) {
    const first = report.cases.find((c) => c.status === 'not-exercised');
    return {
      ok: false,
      firstLine: `bcsim conform: ${notExercised} case${notExercised === 1 ? ' was' : 's were'} not exercised, and --require-exercised fails the run; the first: ${first?.id}: ${first?.summary}${also}`,
    };
  }
  // The cases passed on what did read; the garbage around it is still said first.
  return { ok: true, firstLine: garbage === null ? null : `bcsim conform: ${garbage}` };
}

export function renderConformText(report: ConformReport, outcome: ConformOutcome = conformOutcome(report)): string {
  const lines: string[] = [];
  if (outcome.firstLine !== null) lines.push(outcome.firstLine);
  lines.push(
    `bcsim conform ${report.server} · seed ${report.seed} · ${report.cases.length} cases · ${report.sessions} sessions · ${report.wallSeconds.toFixed(1)} s`,
  );
  const width = Math.max(...report.cases.map((c) => c.id.length));
  for (const c of report.cases) {
    lines.push(`${STATUS_WORD[c.status].padEnd(13)} ${c.id.padEnd(width)}  ${c.summary}`);
    if (c.status === 'pass') continue;
    if (c.explainedBy !== null) lines.push(`      follows from: ${c.explainedBy} (above)`);
    for (const e of c.evidence.slice(0, TEXT_EVIDENCE)) {
      const at = e.timeS === null ? '' : `t=${e.timeS.toFixed(3)} s `;
      lines.push(`      ${at}[${e.session}] ${e.detail}`);
      if (e.hex !== '') lines.push(`        ${HEX_LABEL[e.from ?? 'us']}: ${clip(e.hex)}`);
    }
    if (c.evidence.length > TEXT_EVIDENCE)
      lines.push(`      … and ${c.evidence.length - TEXT_EVIDENCE} more (--json has them all)`);
    lines.push(`      re-run: ${c.repro}`);
  }
  if (report.serverDeviations.datagrams > 0) {
    lines.push(
      `the server's wire: ${report.serverDeviations.datagrams} datagrams depart from the stock form (${deviationCountsText(report.serverDeviations)}); bcsim decode names each`,
    );
  }
  lines.push(...wireLines(report));
  const { pass: passed, fail: failed, notExercised } = report.counts;
  lines.push(`conform: ${countsLine({ passed, failed, notExercised }, report.cases.length, 'case')}`);
  return `${lines.join('\n')}\n`;
}

/** What came to our sockets besides the server's readable datagrams, and what the logs could not keep. */
function wireLines(report: ConformReport): string[] {
  const w = report.wire;
  const lines: string[] = [];
  if (w.unreadable.total > 0)
    lines.push(`unreadable datagrams from the server: ${unreadableLine(w.unreadable)} (${w.readable} readable)`);
  if (w.gamespy > 0)
    lines.push(
      `GameSpy replies from the server (to datagrams of ours that began with '\\'): ${w.gamespy}, not read as BC`,
    );
  if (w.foreign > 0) lines.push(`datagrams from other addresses than the server: ${w.foreign}, not read`);
  if (w.notKept > 0)
    lines.push(
      `the sessions' logs were full (${w.logBudgetBytes} bytes): ${w.notKept} datagrams not kept (${w.notKeptBytes} bytes); their cases are NOT EXERCISED`,
    );
  return lines;
}

function clip(hex: string): string {
  const bytes = hex.split(' ');
  return bytes.length > TEXT_HEX_BYTES ? `${bytes.slice(0, TEXT_HEX_BYTES).join(' ')} … (${bytes.length} bytes)` : hex;
}

export const CONFORM_SUITE = 'bcsim conform';

/**
 * One test case per conformance case: a failure with its evidence, a skip with its
 * reason (a failure with --require-exercised).
 */
export function conformJunitXml(report: ConformReport, requireExercised = false): string {
  const cases = report.cases.map((c) => {
    const failure =
      c.status === 'fail'
        ? {
            message: c.summary,
            detail: [
              ...c.evidence.map(
                (e) =>
                  `${e.timeS === null ? '' : `t=${e.timeS.toFixed(3)} s `}[${e.session}] ${e.detail}${e.hex ? `\n${HEX_LABEL[e.from ?? 'us']}: ${e.hex}` : ''}`,
              ),
              `re-run: ${c.repro}`,
            ].join('\n'),
          }
        : undefined;
    const required = c.status === 'not-exercised' && requireExercised;
    return verdictJunitCase(`${CONFORM_SUITE} ${report.server}`, {
      name: `${c.id}: ${c.title}`,
      status: required ? 'fail' : c.status,
      ...(failure === undefined ? {} : { failure }),
      ...(c.status === 'not-exercised' ? { reason: c.summary } : {}),
    });
  });
  return verdictJunitXml(CONFORM_SUITE, cases, wireLines(report));
}
