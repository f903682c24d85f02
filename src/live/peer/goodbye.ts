// When a live client says goodbye, and when the run ends at the latest
// (docs/live.md). `--duration` bounds the whole run: it ends
// at most DISCONNECT_GRACE_US after the duration, goodbye included.
//
// A client that leaves at once (closePolicy immediate) stops its traffic and
// sends its Disconnect at the duration, then waits for its ACK. A client that
// drains first (closePolicy drain: its Disconnect goes only once everything it
// sent was ACKed) starts earlier by the time a message takes to be re-sent
// twice (two retransmit intervals, 4 s stock; at most half the run): at 10 %
// loss its last messages, its Disconnect and a draining server's last messages
// each need a re-send now and then, and the goodbye must fit them all. The
// trade-off: a fixed client plays that much less traffic, and what is still
// unACKed or undelivered at the end stays so (the summary counts it and shows
// the state the connection ended in).
import { addUs, diffUs, micros, minUs, scaleUs, ZERO_US } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import { retransmitIntervalUs } from '../../model/transport/index.js';
import type { Role, TransportSwitches } from '../../model/transport/index.js';

/** After the duration a client's goodbye may take at most this long; then the run ends whatever its state. */
export const DISCONNECT_GRACE_US = micros(1_000_000);

export interface GoodbyePlan {
  /** When the traffic stops and the goodbye starts (a server: when it stops). */
  readonly goodbyeAtUs: Micros;
  /** When the run ends at the latest. */
  readonly endByUs: Micros;
}

export function goodbyePlan(role: Role, switches: TransportSwitches, durationUs: Micros): GoodbyePlan {
  if (role === 'server') return { goodbyeAtUs: durationUs, endByUs: durationUs };
  const twoResendsUs = addUs(
    retransmitIntervalUs(switches.retransmit, 0),
    retransmitIntervalUs(switches.retransmit, 1),
  );
  const leadUs = switches.closePolicy === 'drain' ? minUs(twoResendsUs, scaleUs(durationUs, 0.5)) : ZERO_US;
  return { goodbyeAtUs: diffUs(durationUs, leadUs), endByUs: addUs(durationUs, DISCONNECT_GRACE_US) };
}
