// Jumps of a capture's clock: a packet far from the one before it, either way.
// The analysis spans the whole time the timestamps cover, so a jump (a bad
// clock, a hostile file, two sessions in one file) is named with its packet.

/**
 * A gap between two packets longer than this is a jump: far past any peer
 * timeout, so no connection lives across it.
 */
const CLOCK_JUMP_US = 3_600_000_000;
/** Jumps listed by packet; the rest are counted. */
const CLOCK_JUMPS_LISTED = 3;

/** A packet whose timestamp is far from the one before it: its 1-based number and the gap (negative: back). */
export interface ClockJump {
  readonly packet: number;
  readonly gapUs: number;
}

/** The packets' timestamps in file order: the jumps, and whether a packet is out of time order. */
export class PacketTimeline {
  readonly jumps: { count: number; readonly listed: ClockJump[] } = { count: 0, listed: [] };
  private previousUs: number | null = null;
  private latestUs = Number.NEGATIVE_INFINITY;

  /** Packet number `packet` (1-based, in file order) has timestamp `timeUs`; true if it is earlier than one before it. */
  see(packet: number, timeUs: number): boolean {
    if (this.previousUs !== null && Math.abs(timeUs - this.previousUs) > CLOCK_JUMP_US) {
      this.jumps.count++;
      if (this.jumps.listed.length < CLOCK_JUMPS_LISTED)
        this.jumps.listed.push({ packet, gapUs: timeUs - this.previousUs });
    }
    this.previousUs = timeUs;
    if (timeUs < this.latestUs) return true;
    this.latestUs = timeUs;
    return false;
  }
}
