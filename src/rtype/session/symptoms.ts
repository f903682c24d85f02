// The symptoms a run shows, each a plain test on its summary:
// no resend ever, a resend storm, deaths lost under loss, growing lists, one
// client's ACK clearing another's; and the finer ones that tell defects apart).
import type { RtypeSummary } from './summary.js';

export type RtypeSymptom =
  | 'noResend'
  | 'resendStorm'
  | 'deathsLost'
  | 'unreportedLoss'
  | 'growingLists'
  | 'crossClientClear'
  | 'acksNeverSent'
  | 'acksUnmatched'
  | 'duplicateDeaths'
  | 'slowRecovery'
  | 'registrationAck';

export const SYMPTOM_DESCRIPTIONS: Readonly<Record<RtypeSymptom, string>> = {
  noResend: 'no resend ever, although the downlinks lost deaths',
  resendStorm: 'resends beyond one per frame per (client, packet) the server waits on',
  deathsLost: 'deaths that a client never received and the server no longer re-sends',
  unreportedLoss: 'lost deaths the server never gave up on: dropped silently',
  growingLists: 'pending entries left pointing at expired packets (only a late confirmation removes them)',
  crossClientClear: "one client's confirmation cleared another client's pending entry",
  acksNeverSent: 'deaths were delivered but no confirmation ever reached the server',
  acksUnmatched: 'confirmations that cleared nothing (not attributable to a user)',
  duplicateDeaths: 'a client received a death it already had, or one it was never due',
  slowRecovery: 'a death arrived later than twice the expiry window',
  registrationAck: "a registration's never-filled header was taken as a confirmation",
};

export const RTYPE_SYMPTOMS = Object.keys(SYMPTOM_DESCRIPTIONS) as RtypeSymptom[];

const TESTS: Readonly<Record<RtypeSymptom, (s: RtypeSummary) => boolean>> = {
  noResend: (s) => s.resends.datagrams === 0 && s.wire.criticalDropped > 0,
  resendStorm: (s) => s.resends.excess > 0,
  deathsLost: (s) => s.deaths.lost > 0,
  unreportedLoss: (s) => s.deaths.unreportedLost > 0,
  growingLists: (s) => s.pending.danglingFinal > 0,
  crossClientClear: (s) => s.confirmations.clearedForOthers > 0,
  acksNeverSent: (s) => s.confirmations.received.total === 0 && s.deaths.delivered > 0,
  acksUnmatched: (s) => s.confirmations.unattributed.total > 0,
  duplicateDeaths: (s) => s.deaths.duplicates + s.deaths.extraneous > 0,
  slowRecovery: (s) => s.deaths.latencyMs.max > 2 * s.timing.expireAfterMs,
  registrationAck: (s) => s.confirmations.received.registration > 0,
};

/** The symptoms the summary shows, in RTYPE_SYMPTOMS order. */
export function rtypeSymptoms(summary: RtypeSummary): RtypeSymptom[] {
  return RTYPE_SYMPTOMS.filter((name) => TESTS[name](summary));
}
