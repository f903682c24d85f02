// The swarm's failure reports: a likely cause, every violation, and the command that reproduces the run.
import type { RunOutcome } from './execute.js';
import { reproCommand } from './repro.js';

/** A best guess at the cause, from the run's classes and what it violated (for the report, not a verdict). */
export function likelyCause(o: RunOutcome): string {
  const names = new Set(o.violations.map((v) => v.invariant));
  const classes = new Set(o.spec.classes);
  if (names.has('0 harness timing') || names.has('4 fault did not fire'))
    return 'harness: the generator promised something the run did not show';
  if (names.has('5 the run threw')) return 'the run threw (a transport assertion or an engine limit)';
  if (o.spec.plantedBug !== null) return `planted bug ${o.spec.plantedBug}`;
  if (names.has('6 bounded queues')) return 'a queue that fixed mode keeps bounded grew';
  if ([...classes].some((c) => c.startsWith('aliasing probe')))
    return 'aliasing at high rates (seqs more than half the u16 space apart)';
  if (classes.has('give-up: retryLimit') || classes.has('give-up: maxMessageAgeMs'))
    return 'give-up does not end the connection (lost while open, or stalls)';
  if (names.has('2 graceful close lost messages')) return 'a graceful close loses data';
  if (names.has('2 end the link did not force')) return 'the transport ended a connection the link did not starve';
  if (o.spec.disconnectTail && names.has('3 liveness')) return 'disconnect stalls';
  if (names.has('3 liveness')) return 'stuck: messages in flight with the connection open';
  return 'other';
}

export function formatFailure(o: RunOutcome): string {
  const lines = [
    `run ${o.spec.index} (generator seed ${o.spec.generatorSeed}, run seed ${o.spec.seed}) — likely: ${likelyCause(o)}`,
    `  classes: ${o.spec.classes.join('; ')}`,
    `  end: server ${o.states.server}, client ${o.states.client}; ${o.ledger}`,
    ...o.violations.map((v) => `  ✗ [${v.invariant}] ${v.detail}`),
    `  repro: ${reproCommand(o.spec)}`,
  ];
  return lines.join('\n');
}

export function formatReport(outcomes: readonly RunOutcome[]): string {
  const failures = outcomes.filter((o) => o.violations.length > 0);
  const byCause = new Map<string, number[]>();
  for (const f of failures) {
    const cause = likelyCause(f);
    byCause.set(cause, [...(byCause.get(cause) ?? []), f.spec.index]);
  }
  const head = [
    `${failures.length} of ${outcomes.length} ${outcomes[0]?.spec.preset ?? 'fixed'}-mode runs broke an invariant (generator seed ${outcomes[0]?.spec.generatorSeed}).`,
    ...[...byCause].map(([cause, runs]) => `  ${runs.length} × ${cause}: runs ${runs.join(', ')}`),
    '',
  ];
  return [...head, ...failures.map(formatFailure)].join('\n');
}
