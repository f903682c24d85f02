// Drop rules, per direction. Join rules drop the first N of some join message (each drop costs the
// join a retry); windowed rules drop with a probability for a while and are placed in combat by
// windows.ts. A direction with rules must see one of them fire.
import { perSecondOverMs, secondsToMs } from '../../core/engine/index.js';
import type { Draft } from './draft.js';
import { DIRECTIONS } from './spec.js';
import type { Direction } from './spec.js';
import { TICK_MS } from './timing.js';
import type { Rate } from './traffic.js';

export type Rule = Record<string, unknown>;

/** A rule active for `lengthMs` somewhere in combat (windows.ts decides where). */
export interface WindowedRule {
  readonly direction: Direction;
  readonly rule: Rule;
  readonly lengthMs: number;
}

export interface DropRules {
  readonly rules: Record<Direction, Rule[]>;
  /** Join messages the rules are sure to drop. */
  readonly joinRuleRetries: number;
  readonly windowed: WindowedRule[];
}

export interface DropRuleInputs {
  /** No rules: a clean join, or a give-up run where only the outage may exhaust the retries. */
  readonly none: boolean;
  /** Dropping the Disconnect is allowed (a disconnect tail, and nothing else ends the connection). */
  readonly disconnect: boolean;
  readonly rate: Rate;
}

export function drawDropRules(d: Draft, o: DropRuleInputs): DropRules {
  const { r, classes } = d;
  const { clientShare, perSecond } = o.rate;
  const rules: Record<Direction, Rule[]> = { clientToServer: [], serverToClient: [] };
  let joinRuleRetries = 0;
  const windowed: WindowedRule[] = [];
  const ruleCount = o.none
    ? 0
    : r.weighted([
        ['0', 65],
        ['1', 25],
        ['2', 10],
      ] as const);
  for (let k = 0; k < Number(ruleCount); k++) {
    const kind = r.weighted([
      ['fragment-ack', 3],
      ['seq-ack', 3],
      ['game-first', 2],
      ['low-first', 1],
      ['ack-window', 2],
      ['game-window', 2],
      ['disconnect', o.disconnect ? 2 : 0],
    ] as const);
    const scope = r.pick(['message', 'datagram'] as const);
    switch (kind) {
      case 'fragment-ack': {
        // The server ACKs the client's 3 join fragments: drop the first N of those ACKs.
        const first = r.int(1, 4);
        const match: Record<string, unknown> = { type: 'ack', fragment: true };
        if (r.chance(0.3)) match.fragIndex = r.int(0, 2);
        rules.serverToClient.push({ scope, match, first });
        joinRuleRetries += first;
        classes.add('drop rule: fragment ACKs');
        break;
      }
      case 'seq-ack': {
        // The first N ACKs of one seq that every join ACKs: high seqs 0..2 both ways; low seqs 0 (the
        // connect reply) and 1 (the keepalive) from the client, but only 1 from the server, which answers
        // the client's Connect (low seq 0) with its connect reply, never with an ACK.
        const direction = r.pick(DIRECTIONS);
        const first = r.int(1, 5);
        const lowType = r.chance(0.4) ? r.chance(0.5) : undefined;
        const lowestSeq = lowType === true && direction === 'serverToClient' ? 1 : 0;
        const match: Record<string, unknown> = { type: 'ack', seq: r.int(lowestSeq, lowType === true ? 1 : 2) };
        if (lowType !== undefined) match.lowType = lowType;
        rules[direction].push({ scope, match, first });
        joinRuleRetries += first;
        classes.add('drop rule: first N ACKs of a seq');
        break;
      }
      case 'game-first': {
        const direction = r.pick(DIRECTIONS);
        const first = r.int(1, 6);
        rules[direction].push({ scope, match: { type: 'game', reliable: true }, first });
        joinRuleRetries += first;
        classes.add('drop rule: first N game messages');
        break;
      }
      case 'low-first': {
        const direction = r.pick(DIRECTIONS);
        const first = r.int(1, 3);
        rules[direction].push({ scope: 'message', match: { lowType: true, reliable: true }, first });
        joinRuleRetries += first;
        classes.add('drop rule: first N low-type messages');
        break;
      }
      case 'ack-window': {
        // ACKs of the other side's combat traffic, dropped with probability p for a window.
        const direction = r.pick(DIRECTIONS);
        const senderShare = direction === 'serverToClient' ? clientShare : 1 - clientShare;
        const probability = r.float(0.2, 0.6, 2);
        // At least ~12 expected drops (ACKs go out within an update of the message).
        const ackedPerSecond = Math.min(perSecond * senderShare, perSecondOverMs(1, TICK_MS));
        const lengthMs = Math.min(20_000, Math.max(4_000, Math.ceil(secondsToMs(12 / (ackedPerSecond * probability)))));
        windowed.push({ direction, rule: { scope: 'datagram', match: { type: 'ack' }, probability }, lengthMs });
        classes.add('drop rule: ACK datagrams in a window');
        break;
      }
      case 'game-window': {
        const direction = r.pick(DIRECTIONS);
        const senderShare = direction === 'clientToServer' ? clientShare : 1 - clientShare;
        const probability = r.float(0.1, 0.5, 2);
        const lengthMs = Math.min(
          20_000,
          Math.max(3_000, Math.ceil(secondsToMs(12 / (perSecond * senderShare * probability)))),
        );
        windowed.push({
          direction,
          rule: { scope: 'message', match: { type: 'game', reliable: true }, probability },
          lengthMs,
        });
        classes.add('drop rule: game messages in a window');
        break;
      }
      case 'disconnect': {
        rules.clientToServer.push({ scope, match: { type: 'disconnect' }, first: r.int(1, 2) });
        classes.add('drop rule: the Disconnect');
        break;
      }
    }
  }
  return { rules, joinRuleRetries, windowed };
}

/** Puts each direction's rules (windowed ones already placed) on its link block. */
export function applyDropRules(d: Draft, rules: Record<Direction, Rule[]>): void {
  for (const direction of DIRECTIONS) {
    if (rules[direction].length > 0) {
      d.link[direction].drop = rules[direction];
      d.checks.push({ fault: 'rule', direction });
    }
  }
}
