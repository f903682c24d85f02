// Invariant check of a LinkConfig. The scenario layer validates user input with
// friendly messages first; reaching a throw here means a wiring bug, so the
// message names the offending field path.
import { TYPE_NAMES } from '../../core/codec/index.js';
import { millis } from '../../core/engine/index.js';
import type { DropRule, LinkConfig } from './config.js';

const TYPE_NAME_SET = new Set(Object.values(TYPE_NAMES));

// The scenario schema uses these same bounds, so user input never reaches a throw here.
/** The slot grid is in whole microseconds, so a slot is at least 1 us. */
export const MIN_SLOT_MS = millis(0.001);
/**
 * Below 1 B/s a full queue of 512-byte datagrams departs past 2^53 us, where
 * the integer clock breaks; at 1 B/s a 1,000,000-datagram queue ends within ~16 years.
 */
export const MIN_BANDWIDTH_BYTES_PER_SECOND = 1;

function fail(field: string, value: unknown, expected: string): never {
  throw new Error(`link config: ${field} is ${JSON.stringify(value)}, expected ${expected}`);
}

function probability(field: string, value: number): void {
  if (!(Number.isFinite(value) && value >= 0 && value <= 1)) fail(field, value, 'a probability in [0, 1]');
}

function nonNegative(field: string, value: number): void {
  if (!(Number.isFinite(value) && value >= 0)) fail(field, value, 'a finite number >= 0');
}

function finite(field: string, value: number): void {
  if (!Number.isFinite(value)) fail(field, value, 'a finite number');
}

/** Throws an Error naming the first invalid field. */
export function validateLinkConfig(config: LinkConfig): void {
  const { latency, loss, duplicate, reorder, bandwidth, slot } = config;
  nonNegative('latency.baseMs', latency.baseMs);
  nonNegative('latency.jitterMs', latency.jitterMs);
  if (!['uniform', 'normal', 'exponential'].includes(latency.distribution)) {
    fail('latency.distribution', latency.distribution, "'uniform' | 'normal' | 'exponential'");
  }
  switch (loss.model) {
    case 'none':
      break;
    case 'bernoulli':
      probability('loss.probability', loss.probability);
      break;
    case 'gilbert-elliott':
      probability('loss.pGoodToBad', loss.pGoodToBad);
      probability('loss.pBadToGood', loss.pBadToGood);
      probability('loss.lossGood', loss.lossGood);
      probability('loss.lossBad', loss.lossBad);
      break;
    default:
      fail('loss.model', (loss as { model: unknown }).model, "'none' | 'bernoulli' | 'gilbert-elliott'");
  }
  probability('duplicate.probability', duplicate.probability);
  nonNegative('duplicate.extraDelayMs', duplicate.extraDelayMs);
  probability('reorder.probability', reorder.probability);
  if (!(Number.isInteger(reorder.gap) && reorder.gap >= 1)) fail('reorder.gap', reorder.gap, 'an integer >= 1');
  if (
    bandwidth.bytesPerSecond !== null &&
    !(Number.isFinite(bandwidth.bytesPerSecond) && bandwidth.bytesPerSecond >= MIN_BANDWIDTH_BYTES_PER_SECOND)
  ) {
    fail(
      'bandwidth.bytesPerSecond',
      bandwidth.bytesPerSecond,
      `null or a finite number >= ${MIN_BANDWIDTH_BYTES_PER_SECOND}`,
    );
  }
  if (!(Number.isFinite(bandwidth.burstBytes) && bandwidth.burstBytes > 0))
    fail('bandwidth.burstBytes', bandwidth.burstBytes, 'a finite number > 0');
  if (!(Number.isInteger(bandwidth.queueLimitPackets) && bandwidth.queueLimitPackets >= 0)) {
    fail('bandwidth.queueLimitPackets', bandwidth.queueLimitPackets, 'an integer >= 0');
  }
  if (slot.intervalMs !== null && !(Number.isFinite(slot.intervalMs) && slot.intervalMs >= MIN_SLOT_MS)) {
    fail('slot.intervalMs', slot.intervalMs, `null or a finite number >= ${MIN_SLOT_MS}`);
  }
  config.outages.forEach((outage, i) => {
    finite(`outages[${i}].startMs`, outage.startMs);
    finite(`outages[${i}].endMs`, outage.endMs);
    if (!(outage.endMs > outage.startMs)) fail(`outages[${i}].endMs`, outage.endMs, `> startMs (${outage.startMs})`);
  });
  config.dropRules.forEach((rule, i) => validateRule(`dropRules[${i}]`, rule));
  (config.faults ?? []).forEach((f, i) => {
    nonNegative(`faults[${i}].atUs`, f.atUs);
    if (!(Number.isInteger(f.datagram) && f.datagram >= 0))
      fail(`faults[${i}].datagram`, f.datagram, 'an integer >= 0');
    if (!['drop', 'duplicate', 'delay'].includes(f.action))
      fail(`faults[${i}].action`, f.action, "'drop' | 'duplicate' | 'delay'");
    if (f.delayMs !== undefined) nonNegative(`faults[${i}].delayMs`, f.delayMs);
  });
}

function validateRule(at: string, rule: DropRule): void {
  if (rule.scope !== 'datagram' && rule.scope !== 'message') fail(`${at}.scope`, rule.scope, "'datagram' | 'message'");
  probability(`${at}.probability`, rule.probability);
  if (rule.firstN !== null && !(Number.isInteger(rule.firstN) && rule.firstN >= 0))
    fail(`${at}.firstN`, rule.firstN, 'null or an integer >= 0');
  if (rule.fromMs !== null) finite(`${at}.fromMs`, rule.fromMs);
  if (rule.untilMs !== null) finite(`${at}.untilMs`, rule.untilMs);
  if (rule.fromMs !== null && rule.untilMs !== null && rule.untilMs < rule.fromMs) {
    fail(`${at}.untilMs`, rule.untilMs, `>= fromMs (${rule.fromMs})`);
  }
  const type = rule.match.type;
  if (typeof type === 'string' && !TYPE_NAME_SET.has(type))
    fail(`${at}.match.type`, type, `one of ${[...TYPE_NAME_SET].join(', ')}`);
  if (typeof type === 'number' && !(Number.isInteger(type) && type >= 0 && type <= 0xff))
    fail(`${at}.match.type`, type, 'a type byte');
}
