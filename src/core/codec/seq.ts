// u16 sequence numbers with serial-number arithmetic (docs/sources.md 1):
// a 4-hour session at 60 reliable/s wraps 13 times. The transport, the capture
// analysis and the decoder's re-send numbering all count seqs with these.

export const SEQ_MODULUS = 0x10000;
export const SEQ_HALF = 0x8000;

export function seqNext(seq: number): number {
  return (seq + 1) & 0xffff;
}

/** Forward distance from `from` to `to`, in [0, 65535]. */
export function seqDistance(from: number, to: number): number {
  return (to - from) & 0xffff;
}

/** True when `a` comes before `b` within half the sequence space. */
export function seqBefore(a: number, b: number): boolean {
  const d = seqDistance(a, b);
  return d !== 0 && d < SEQ_HALF;
}
