// What the R-Type model claims each defect does, against which
// `bcsim reproduce rtype` checks its measurements: the table's five symptoms a
// defect adds when switched on alone over `repaired`, and the finer ones it adds
// besides (rtypeSymptoms; docs/rtype.md#switches).
import type { DefectSwitch } from '../../rtype/transport/index.js';
import type { RtypeSymptom } from '../../rtype/session/index.js';

/** The table's symptom columns, in order. */
export const TABLE_SYMPTOMS = [
  'noResend',
  'resendStorm',
  'deathsLost',
  'growingLists',
  'crossClientClear',
] as const satisfies readonly RtypeSymptom[];
export type TableSymptom = (typeof TABLE_SYMPTOMS)[number];

export const TABLE_SYMPTOM_TITLES: Readonly<Record<TableSymptom, string>> = {
  noResend: 'no resend ever',
  resendStorm: 'resend storm',
  deathsLost: 'deaths lost under loss',
  growingLists: 'growing lists',
  crossClientClear: "one client's ACK clears another's",
};

export interface DefectClaim {
  /** Table symptoms the defect alone adds over repaired. */
  readonly adds: readonly TableSymptom[];
  /** Table symptoms it may add by chance of the losses, on some seeds. */
  readonly incidental?: readonly TableSymptom[];
  /** Finer symptoms it alone adds over repaired (loss workload). */
  readonly also: readonly RtypeSymptom[];
}

export const DEFECT_CLAIMS: Readonly<Record<DefectSwitch, DefectClaim>> = {
  // Clients never see an id, so never confirm: every pair is re-sent to expiry.
  ackZeroedOnSend: { adds: [], also: ['acksNeverSent', 'duplicateDeaths'] },
  // The real lists stay empty: nothing to re-send; every confirmation clears nothing.
  pendingListsOnCopies: { adds: ['noResend', 'deathsLost'], also: ['unreportedLoss', 'acksUnmatched'] },
  // The game loop sees no user: the same outcome through another door.
  loopHoldsStaleCopies: { adds: ['noResend', 'deathsLost'], also: ['unreportedLoss', 'acksUnmatched'] },
  // Ids never match ticks: confirmations clear nothing, the timer re-sends to expiry.
  pendingHoldsTicks: { adds: [], also: ['acksUnmatched', 'duplicateDeaths'] },
  // Milliseconds read as 30 Hz ticks: repaired's 150 ms retry becomes 5 s, the 1500 ms expiry 50 s.
  thresholdsInTicks: { adds: [], also: ['slowRecovery'] },
  // Every resend broadcast every tick: copies to clients that have it, confirmed again.
  resendEveryTickToAll: { adds: ['resendStorm'], also: ['acksUnmatched', 'duplicateDeaths'] },
  // Expired packets leave their entries behind (measured under the outage workload).
  silentDropAtExpiry: { adds: ['growingLists'], also: [] },
  // The last id only: the rest of a burst is re-sent; the sticky id is confirmed again and again.
  confirmViaNextUdp: { adds: [], also: ['acksUnmatched', 'duplicateDeaths'] },
  // The first client to confirm clears everyone's entry. A death is then re-sent only when
  // every client lost it, so on some seeds nothing is ever re-sent.
  clearWithoutBreak: {
    adds: ['deathsLost', 'crossClientClear'],
    incidental: ['noResend'],
    also: ['unreportedLoss', 'acksUnmatched'],
  },
  // Inert over TCP confirmations (with confirmViaNextUdp, a registration confirms a stale id).
  registrationReadsStaleHeader: { adds: [], also: [] },
};
