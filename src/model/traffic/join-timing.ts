// The join's timeline on loopback (docs/sources.md 33), declared once: the
// captured times, and the think times of each side that reproduce them under
// the update loop of docs/sources.md 16 (a reply leaves in the update after the
// one that read and dispatched its trigger, so a host answers no sooner than
// two of its updates after the trigger arrived).

/** The events of the captured join whose times were published. */
export type JoinEvent =
  | 'connect'
  | 'connectReply'
  | 'response0'
  | 'request1'
  | 'response1'
  | 'request2'
  | 'response2'
  | 'request3'
  | 'response3'
  | 'requestFF'
  | 'responseFF'
  | 'settings';

interface TimelineEntry {
  readonly event: JoinEvent;
  readonly label: string;
  /** When the datagram was captured, from the Connect. */
  readonly atMs: number;
}

/** docs/sources.md 33: the stock dedicated server's join on loopback, by capture time. */
export const MEASURED_JOIN_TIMELINE: readonly TimelineEntry[] = [
  { event: 'connect', label: 'Connect', atMs: 0 },
  { event: 'connectReply', label: 'ConnectAck + round 0 request', atMs: 2 },
  { event: 'response0', label: 'round 0 response', atMs: 9 },
  { event: 'request1', label: 'round 1 request', atMs: 10 },
  { event: 'response1', label: 'round 1 response', atMs: 11 },
  { event: 'request2', label: 'round 2 request', atMs: 12 },
  { event: 'response2', label: 'round 2 response, first fragment', atMs: 717 },
  { event: 'request3', label: 'round 3 request', atMs: 1178 },
  { event: 'response3', label: 'round 3 response', atMs: 1181 },
  { event: 'requestFF', label: 'round 0xFF request', atMs: 1182 },
  { event: 'responseFF', label: 'round 0xFF response', atMs: 1245 },
  { event: 'settings', label: 'Settings + GameInit', atMs: 1293 },
];

/** The measured time from the event before `event` to it (docs/sources.md 33, "since the previous"). */
function measuredGapMs(event: JoinEvent): number {
  const i = MEASURED_JOIN_TIMELINE.findIndex((e) => e.event === event);
  if (i <= 0) throw new Error(`join timing: ${event} has no previous event`);
  return MEASURED_JOIN_TIMELINE[i].atMs - MEASURED_JOIN_TIMELINE[i - 1].atMs;
}

/**
 * Both hosts' update period on loopback: the +1 ms replies of docs/sources.md 33
 * leave no room for a longer one (a reply takes up to two updates). The built-in
 * loopback join (fragment-ack-bug's join phase) runs at it, and only the join: the
 * think times below assume it.
 */
const LOOPBACK_UPDATE_MS = 1;

/** A reply's share of a measured gap that is the replying host's own: the gap less its two updates. */
function thinkOf(gapMs: number): number {
  return Math.max(0, gapMs - 2 * LOOPBACK_UPDATE_MS);
}

/**
 * The round 2 response is 3 fragments; one datagram per update carries one of them
 * (412 + 411 + 196 bytes do not share 512), so the last arrives two client updates
 * after the first, and the server reads a message only once it is whole.
 */
const FRAGMENTS_AFTER_FIRST = 2;

export interface JoinTiming {
  /** The client's keepalive after the connect reply: no time published; between its ACKs and its round-0 response. */
  readonly keepaliveMs: number;
  /** The client's think time per checksum round (it hashes the round's files), by round number. */
  readonly clientRoundMs: Readonly<Record<number, number>>;
  /**
   * The server's time answering a checksum response, by round: the gap the update loop
   * alone does not explain (traffic.serverChecks). 0xFF's is the Settings' wait.
   */
  readonly serverCheckMs: Readonly<Record<number, number>>;
  /**
   * The server's request of round 2 leaves one update after the ACK of response 1: the capture
   * shows it alone. A reply queued within one update of the read leaves with that ACK, so it waits two.
   */
  readonly request2Ms: number;
  /** NewPlayerInGame after Settings + GameInit: not in the timeline. */
  readonly newPlayerMs: number;
}

const FINAL = 0xff;

/** The think times of the stock join, each derived from a gap of the timeline. */
export const STOCK_JOIN_TIMING: JoinTiming = {
  keepaliveMs: 3,
  clientRoundMs: {
    0: thinkOf(measuredGapMs('response0')),
    1: thinkOf(measuredGapMs('response1')),
    // The documented gap; the stock plan's traffic.round2ThinkMs is calibrated below it (plan.ts).
    2: thinkOf(measuredGapMs('response2')),
    3: thinkOf(measuredGapMs('response3')),
    [FINAL]: thinkOf(measuredGapMs('responseFF')),
  },
  serverCheckMs: {
    2: thinkOf(measuredGapMs('request3') - FRAGMENTS_AFTER_FIRST * LOOPBACK_UPDATE_MS),
    [FINAL]: thinkOf(measuredGapMs('settings')),
  },
  request2Ms: 2 * LOOPBACK_UPDATE_MS,
  newPlayerMs: 30,
};
