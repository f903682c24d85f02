// Modelled memory of the stock 32-bit build (docs/sources.md 15). bcsim reports
// these modelled bytes per queue, not the simulator's own heap.

/** A TGHeaderMessage (0x44) plus its 8-byte queue node. */
export const ACK_ENTRY_BYTES = 0x44 + 8;

/** A TGMessage (0x40) plus its payload buffer plus an 8-byte queue node. */
export function dataMessageBytes(payloadBytes: number): number {
  return 0x40 + payloadBytes + 8;
}
