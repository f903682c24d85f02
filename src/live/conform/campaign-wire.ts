// What every session of a conform campaign received on its socket, and the
// campaign-wide byte budget of the sessions' logs (the arrivals and departures
// the cases, the verdicts and --pcap read). A server that floods a session, or
// a relay in front of it that sends garbage, cannot grow them without end: past
// the budget a datagram is still read and ACKed, only not kept, and counted.
// The server's datagrams that do not read are counted by source with the first
// few in hex (unreadable.ts); a session keeps only its first few in its log.
import { Budget } from '../../core/engine/index.js';
import { UnreadableCounter } from '../unreadable.js';
import type { UnreadableFigures } from '../unreadable.js';

/**
 * The logs of every session together, in estimated bytes: a whole campaign against the
 * reference server (docs/conform.md, --parallel 16) peaked at 88 MiB, its wrap cases most.
 */
const CONFORM_LOG_BYTES = 256 * 1_048_576;
/** The server's unreadable datagrams a session keeps in its log (for evidence and --pcap); the rest are counted. */
export const UNREADABLE_KEPT_PER_SESSION = 16;

/**
 * Memory an entry costs beyond its bytes, measured on Node 20 (RSS over 100,000 decoded
 * arrivals): 1,186 bytes for a 27-byte datagram of one message, 2,478 for 147 bytes of ten.
 */
const ARRIVAL_BYTES = 1000;
/** Each decoded message of an arrival (its object and its payload's view). */
const MESSAGE_BYTES = 130;
/** A departure: its record, its own array, the note and the proof list. */
const DEPARTURE_BYTES = 750;

/** The estimated memory of an arrival of `length` bytes that decoded to `messages` messages. */
export function arrivalBytes(length: number, messages: number): number {
  return ARRIVAL_BYTES + length + MESSAGE_BYTES * messages;
}

/** The estimated memory of a departure of `length` bytes. */
export function departureBytes(length: number): number {
  return DEPARTURE_BYTES + length;
}

export interface ConformWireFigures {
  /** The server's datagrams that read (in the stock form or a reimplementation's). */
  readonly readable: number;
  /** The server's datagrams that do not, by source address, the first few in hex. */
  readonly unreadable: UnreadableFigures;
  /** Datagrams to our sockets from any address but the server's: not read. */
  readonly foreign: number;
  /** The server's GameSpy replies (first byte '\\', sent in the clear on the game port): named, not read as BC. */
  readonly gamespy: number;
  /** The sessions' logs: their budget, and the datagrams (and estimated bytes) not kept once it was spent. */
  readonly logBudgetBytes: number;
  /** The most the logs held at once, estimated. */
  readonly logPeakBytes: number;
  readonly notKept: number;
  readonly notKeptBytes: number;
}

export class CampaignWire {
  readable = 0;
  foreign = 0;
  gamespy = 0;
  readonly unreadable = new UnreadableCounter();
  /** The sessions' logs, in estimated bytes; what did not fit is counted in it. */
  readonly logs: Budget;

  constructor(logBudgetBytes: number = CONFORM_LOG_BYTES) {
    this.logs = new Budget(logBudgetBytes, "conform sessions' logs");
  }

  figures(): ConformWireFigures {
    return {
      readable: this.readable,
      unreadable: this.unreadable.figures(),
      foreign: this.foreign,
      gamespy: this.gamespy,
      logBudgetBytes: this.logs.limit,
      logPeakBytes: this.logs.peak,
      notKept: this.logs.refused,
      notKeptBytes: this.logs.refusedAmount,
    };
  }
}
