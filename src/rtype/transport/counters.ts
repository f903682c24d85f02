// What the R-Type server counts over a run, and what one frame reports.

export interface ServerCounters {
  criticalQueued: number;
  datagramsSent: { critical: number; resend: number; position: number };
  /** `sendPacket` calls made by the resend pass (each is one or, broadcast, N datagrams). */
  resendCalls: number;
  resendDatagrams: number;
  /** Resend datagrams beyond one per frame per (client, packet) the server waits on: the storm. */
  excessResends: number;
  /** The scan's users × list × store comparisons (the real loop's CPU cost). */
  scanComparisons: number;
  /** Datagrams refused by the per-frame send limit. */
  sendLimitHits: number;
  /** Pending entries added to throw-away copies (pendingListsOnCopies). */
  entriesOnCopies: number;
  expiredPackets: number;
  /** Pending entries removed at expiry and reported (gave up). */
  expiredEntries: number;
  /** Entries left pointing at an expired packet. */
  strandedEntries: number;
  registrations: number;
  repeatedRegistrations: number;
  fromUnregistered: number;
  malformed: number;
  /** Zero-length datagrams whose stale header carried a non-zero ack. */
  staleHeaderReads: number;
  confirmations: { tcp: number; udp: number; registration: number };
  /** Confirmations that cleared the sender's own entry. */
  matched: number;
  /** Entries of other users cleared by someone's confirmation (clearWithoutBreak). */
  clearedForOthers: number;
  /** Confirmations that cleared nothing: ACKs that could not be attributed to a user. */
  unattributed: { tcp: number; udp: number; registration: number };
}

export function newServerCounters(): ServerCounters {
  return {
    criticalQueued: 0,
    datagramsSent: { critical: 0, resend: 0, position: 0 },
    resendCalls: 0,
    resendDatagrams: 0,
    excessResends: 0,
    scanComparisons: 0,
    sendLimitHits: 0,
    entriesOnCopies: 0,
    expiredPackets: 0,
    expiredEntries: 0,
    strandedEntries: 0,
    registrations: 0,
    repeatedRegistrations: 0,
    fromUnregistered: 0,
    malformed: 0,
    staleHeaderReads: 0,
    confirmations: { tcp: 0, udp: 0, registration: 0 },
    matched: 0,
    clearedForOthers: 0,
    unattributed: { tcp: 0, udp: 0, registration: 0 },
  };
}

/** One frame of the game loop. */
export interface FrameStats {
  datagrams: number;
  criticalSends: number;
  resendDatagrams: number;
  resendCalls: number;
  excessResends: number;
  /** The most resend calls made for one user in this frame (k² under the storm). */
  maxCallsPerUser: number;
}
