// An observer that keeps every datagram a run puts on the wire, decoded.
import { decodeDatagram } from '../../src/core/codec/index.js';
import type { Located } from '../../src/core/codec/index.js';
import type { SessionObserver } from '../../src/model/session/observer.js';
import type { Role } from '../../src/model/transport/roles.js';

export interface Sent {
  timeUs: number;
  from: Role;
  bytes: Uint8Array;
  messages: readonly Located[];
  notes: readonly number[];
}

export function recordSent(): { observer: SessionObserver; sent: Sent[] } {
  const sent: Sent[] = [];
  const observer: SessionObserver = {
    datagramSent(timeUs, from, bytes, _uids, notes) {
      const decoded = decodeDatagram(bytes);
      if (!decoded.ok) throw new Error('malformed datagram on the wire');
      sent.push({ timeUs, from, bytes, messages: decoded.datagram.messages, notes: [...notes] });
    },
  };
  return { observer, sent };
}
