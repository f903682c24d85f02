// The idle keepalive and the server's echo, built from the keepalive switches
// (docs/sources.md 12 and 18 disagree; each reading is a field of KeepalivePolicy).
import { TYPE_CONNECT, TYPE_DATA } from '../../core/codec/index.js';
import type { DataType } from '../../core/codec/index.js';
import { keepalivePayload } from './identity.js';
import type { HostIdentity } from './identity.js';
import type { Role } from './roles.js';
import type { IdleCounts, KeepalivePolicy } from './switches.js';

export interface KeepaliveShape {
  readonly type: DataType;
  readonly payload: Uint8Array;
  readonly reliable: boolean;
  readonly ordered: boolean;
}

const EMPTY = new Uint8Array(0);

/** Does this role send idle keepalives under the policy? (docs/sources.md 18: both do.) */
export function sendsKeepalives(policy: KeepalivePolicy, role: Role): boolean {
  return policy.senders === 'both' || policy.senders === role;
}

/**
 * The idle keepalive. type-0x00: the captured 22-byte identity message
 * [slot][IPv4][UTF-16LE name] (reliable+ordered when reliable). type-0x02: the
 * decompiled constructor, whose payload the listing does not show: empty.
 */
export function idleKeepalive(policy: KeepalivePolicy, identity: HostIdentity, slot: number): KeepaliveShape {
  if (policy.message === 'type-0x02')
    return { type: TYPE_CONNECT, payload: EMPTY, reliable: policy.reliable, ordered: policy.reliable };
  return identityMessage(identity, slot, policy.reliable);
}

/** The type-0x00 identity message; the server's echo mirrors the reliability of what it answers. */
export function identityMessage(identity: HostIdentity, slot: number, reliable: boolean): KeepaliveShape {
  return { type: TYPE_DATA, payload: keepalivePayload(identity, slot), reliable, ordered: reliable };
}

/** Does a sent datagram reset the "nothing sent for 5 s" clock? */
export function resetsIdleClock(
  counts: IdleCounts,
  out: { firstSends: number; retransmits: number; reliables: number },
): boolean {
  switch (counts) {
    case 'any-datagram':
      return true;
    case 'first-sends':
      return out.firstSends > 0;
    case 'data-messages':
      return out.firstSends + out.retransmits > 0;
    case 'reliable-messages':
      return out.reliables > 0;
  }
}
