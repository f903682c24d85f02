// A pcapng packet's time from its 64-bit timestamp and its interface's clock
// (if_tsresol, if_tsoffset; pcapng specification, Interface Description Block
// options). bcsim counts time in µs held in doubles, exact up to 2^53 − 1 µs,
// so a packet is shown when its time is 0 to 2^53 − 1 µs after 1970 (to
// 2255-06-05) and refused otherwise. Every classic pcap timestamp (u32 seconds
// and u32 fraction: at most 4,294,971,590 s) is within that range.
import { secondsToUsUnrounded } from '../engine/index.js';
import { TWO_POW_32 } from './pcapng-options.js';
import type { PcapngInterface } from './pcapng-options.js';

/** The last time shown: 2^53 − 1 µs after 1970. */
const MAX_TIME_US = Number.MAX_SAFE_INTEGER;
/** Its whole seconds. */
const MAX_WHOLE_SECONDS = 9_007_199_254n;
const RANGE_TEXT = '1970-01-01 to 2255-06-05 UTC, 0 to 2^53 − 1 µs';

/** µs since 1970 of timestamp (high, low) on `iface`, or null when it is outside 0..2^53 − 1 µs. */
export function pcapngTimeUs(iface: PcapngInterface, high: number, low: number): number | null {
  const scaledUs = (high * TWO_POW_32 + low) * iface.usPerUnit;
  const timeUs = scaledUs + iface.offsetUs;
  // With both terms in range the double arithmetic is within 3 µs of the true time (exact in µs or coarser units).
  if (scaledUs <= MAX_TIME_US && Math.abs(iface.offsetUs) <= MAX_TIME_US && timeUs >= 0 && timeUs <= MAX_TIME_US)
    return timeUs;
  // Otherwise (a huge count that the offset brings back, say) the time is worked out exactly.
  const { whole, rest, perSecond } = exactSeconds(iface, high, low);
  if (whole < 0n || whole > MAX_WHOLE_SECONDS) return null;
  const exactUs = secondsToUsUnrounded(Number(whole)) + secondsToUsUnrounded(Number(rest) / Number(perSecond));
  return exactUs <= MAX_TIME_US ? exactUs : null;
}

/** Why packet `packet`'s timestamp (high, low) on `iface` is refused: its value, its units and where that is. */
export function timestampRefusal(iface: PcapngInterface, high: number, low: number, packet: number): string {
  const units = (BigInt(high) << 32n) | BigInt(low);
  const offset = iface.offsetS === 0n ? '' : ` + if_tsoffset ${iface.offsetS} s`;
  const { whole } = exactSeconds(iface, high, low);
  const when = whole < 0n ? 'before 1970' : `${whole} s after 1970`;
  return `packet ${packet}'s timestamp, ${units} × ${unitText(iface.tsresol)}${offset}, is ${when}, outside the range bcsim can show (${RANGE_TEXT})`;
}

/** The time in seconds since 1970, exactly: whole + rest / perSecond, 0 <= rest < perSecond. */
function exactSeconds(
  iface: PcapngInterface,
  high: number,
  low: number,
): { whole: bigint; rest: bigint; perSecond: bigint } {
  const units = (BigInt(high) << 32n) | BigInt(low);
  const perSecond = unitsPerSecond(iface.tsresol);
  const total = units + iface.offsetS * perSecond;
  let whole = total / perSecond;
  let rest = total % perSecond;
  if (rest < 0n) {
    whole -= 1n;
    rest += perSecond;
  }
  return { whole, rest, perSecond };
}

/** if_tsresol: MSB clear, 10^-n s; set, 2^-(n & 0x7F) s. */
function unitsPerSecond(tsresol: number): bigint {
  const n = BigInt(tsresol & 0x7f);
  return (tsresol & 0x80) === 0 ? 10n ** n : 1n << n;
}

function unitText(tsresol: number): string {
  const n = tsresol & 0x7f;
  if (n === 0) return '1 s';
  return (tsresol & 0x80) === 0 ? `10^-${n} s` : `2^-${n} s`;
}
