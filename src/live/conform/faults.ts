// The wire faults conformance cases apply. A datagram of ours that carries one is
// marked with its kind; when the server removes a session right after such a
// datagram, the removal is blamed on that kind, and the case that probes the kind
// (ConformCase.probes) is the root cause of whatever the removal broke.

export const FAULT_KINDS = {
  duplicate: 'a reliable message sent again with its seq',
  'fragments-out-of-order': 'fragments of one message sent out of order or with one held back',
  'fragment-duplicated': 'a fragment sent twice',
  'cross-category-ack': 'an ACK of one category naming the seq of the other',
  'stale-acks': 'duplicate, late and stale ACKs',
  'late-ack': 'the ACK of a message we had left unACKed',
  'wrapped-seq': 'a message of ours whose seq wrapped past 65,535',
  'full-datagram': 'a datagram full of reliable messages',
  'bad-answer': 'an unreadable checksum answer',
  disconnect: 'our Disconnect',
  hostile: 'garbage, truncated or oversize datagrams',
  keepalive: 'a keepalive',
  'relay-flood': 'many reliable messages for the server to relay or echo',
  'long-relay': 'a message longer than one datagram for the server to relay',
  'fragment-acks-mixed': 'fragment ACKs mixed with other messages in one datagram',
  'withheld-acks': 'many reliable messages of the server left unACKed at once',
  'forged-peer': "a datagram from another address naming this session's slot",
} as const;

export type FaultKind = keyof typeof FAULT_KINDS;

export function faultLabel(kind: FaultKind): string {
  return FAULT_KINDS[kind];
}
