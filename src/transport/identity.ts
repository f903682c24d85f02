// The transport's own small control payloads, shaped like the captured ones
// (DECISIONS.md 12 and "Real packets"): keepalive = [slot][IPv4][UTF-16LE name + NUL],
// 22 bytes on the wire; Disconnect = [slot][IPv4], 10 bytes on the wire.
import type { Role } from './roles.js';

const ADDRESS: Record<Role, readonly number[]> = {
  server: [0x0a, 0x0a, 0x0a, 0x01],
  client: [0x0a, 0x0a, 0x0a, 0xef],
};

const NAME: Record<Role, string> = { server: 'Dukat', client: 'Sisko' };

/** 17 bytes, so the reliable type-0x00 keepalive is 22 bytes long. */
export function keepalivePayload(role: Role, slot: number): Uint8Array {
  const name = NAME[role];
  const bytes = new Uint8Array(1 + 4 + (name.length + 1) * 2);
  bytes[0] = slot;
  bytes.set(ADDRESS[role], 1);
  for (let i = 0; i < name.length; i++) bytes[5 + 2 * i] = name.charCodeAt(i);
  return bytes;
}

/** 5 bytes, as in the captured client Disconnect `05 0A C0 02 00 | 02 0A 0A 0A EF`. */
export function disconnectPayload(role: Role, slot: number): Uint8Array {
  return Uint8Array.of(slot, ...ADDRESS[role]);
}
