// Per-peer counters of the transport model: modelled costs and traffic.
// Plain numbers updated inline; observers read them, never write them.

export interface PeerCounters {
  // Send side.
  packetsSent: number;
  bytesSent: number;
  ackBytesSent: number;
  gameBytesSent: number;
  acksSent: number;
  messagesSent: number;
  /** Largest share of one datagram taken by ACKs, in bytes. */
  ackBytesMaxPerPacket: number;
  /** Most messages in one datagram. */
  messagesMaxPerPacket: number;
  /** First-send messages that waited at least one update because a datagram was full. */
  deferredMessages: number;
  /** Messages refused because a queue was at its limit. */
  sendRejected: number;
  keepalivesSent: number;
  keepalivesEchoed: number;
  /** Updates in which the send window held first sends back (issue 9). */
  windowStalls: number;
  /** Unreliable 0x32 messages too large for one fragment, sent as reliable fragments (transport-layer.md §5). */
  forcedReliable: number;
  // Retransmission.
  retransmits: number;
  fragmentRetransmits: number;
  retransmitReentries: number;
  /** Messages the sender gave up on: retry limit, age limit or peer timeout. */
  gaveUp: number;
  // ACK handling on the sender.
  acksReceived: number;
  acksMatched: number;
  acksUnmatched: number;
  acksOnEmptyQueue: number;
  // ACK-outbox on the receiver.
  ackEntriesCreated: number;
  ackEntriesRefreshed: number;
  ackEntriesFreed: number;
  /** New entries refused because the outbox was at its limit. */
  ackEntriesRefused: number;
  dedupLookups: number;
  dedupComparisons: number;
  dedupMaxPerLookup: number;
  // Receive side.
  packetsReceived: number;
  bytesReceived: number;
  malformedReceived: number;
  reliableReceived: number;
  duplicatesReceived: number;
  /** Reliable messages dropped unACKed because they lay past the send window (stale copies). */
  outOfWindow: number;
  deliveredReliable: number;
  deliveredUnreliable: number;
  /** Fragments that cannot belong to any message (fragment 0 announcing 0 fragments). */
  invalidFragments: number;
  /** Arrivals at a seq whose receive-buffer slot held a different message (wrapReceive decides). */
  wrapConflicts: number;
  /** Datagrams dropped because the socket inbox was full (read only inside updates). */
  inboxOverflows: number;
  /** Network updates run, and updates whose datagrams left with the pass-2 gate shut. */
  updates: number;
  gateShutDatagrams: number;
  // Gauge maxima (the gauges themselves live on the queues).
  ackOutboxMax: number;
  deadZoneMax: number;
  retransmitQueueMax: number;
  firstSendQueueMax: number;
  memoryMaxBytes: number;
}

export function newPeerCounters(): PeerCounters {
  return {
    packetsSent: 0,
    bytesSent: 0,
    ackBytesSent: 0,
    gameBytesSent: 0,
    acksSent: 0,
    messagesSent: 0,
    ackBytesMaxPerPacket: 0,
    messagesMaxPerPacket: 0,
    deferredMessages: 0,
    sendRejected: 0,
    keepalivesSent: 0,
    keepalivesEchoed: 0,
    windowStalls: 0,
    forcedReliable: 0,
    retransmits: 0,
    fragmentRetransmits: 0,
    retransmitReentries: 0,
    gaveUp: 0,
    acksReceived: 0,
    acksMatched: 0,
    acksUnmatched: 0,
    acksOnEmptyQueue: 0,
    ackEntriesCreated: 0,
    ackEntriesRefreshed: 0,
    ackEntriesFreed: 0,
    ackEntriesRefused: 0,
    dedupLookups: 0,
    dedupComparisons: 0,
    dedupMaxPerLookup: 0,
    packetsReceived: 0,
    bytesReceived: 0,
    malformedReceived: 0,
    reliableReceived: 0,
    duplicatesReceived: 0,
    outOfWindow: 0,
    deliveredReliable: 0,
    deliveredUnreliable: 0,
    invalidFragments: 0,
    wrapConflicts: 0,
    inboxOverflows: 0,
    updates: 0,
    gateShutDatagrams: 0,
    ackOutboxMax: 0,
    deadZoneMax: 0,
    retransmitQueueMax: 0,
    firstSendQueueMax: 0,
    memoryMaxBytes: 0,
  };
}
