// The transport's own small control payloads, shaped like the captured ones
// (docs/sources.md 12 and "Real packets"): keepalive = [slot][IPv4][UTF-16LE name + NUL],
// 22 bytes on the wire for a 5-letter name; Disconnect = [slot][IPv4], 10 bytes on the wire.

/** Who a host says it is in those payloads: its IPv4 address and player name. */
export interface HostIdentity {
  readonly address: readonly [number, number, number, number];
  readonly name: string;
}

export const SERVER_IDENTITY: HostIdentity = { address: [10, 10, 10, 1], name: 'Dukat' };

/** Player names for clients 1..16; client 1 is the captured one (10.10.10.239). */
const PLAYER_NAMES = [
  'Sisko',
  'Kira',
  'Dax',
  'Worf',
  'Odo',
  'Bashir',
  'Quark',
  'Nog',
  'Rom',
  'Garak',
  'Keiko',
  'Ezri',
  'Jake',
  'Leeta',
  'Vic',
  'Martok',
];

/** Client k (1-based): 10.10.10.(238 + k), so client 1 is the captured 10.10.10.239. */
export function clientIdentity(client: number): HostIdentity {
  if (!(Number.isInteger(client) && client >= 1 && client <= PLAYER_NAMES.length))
    throw new Error(`identity: no client ${client}`);
  return { address: [10, 10, 10, 238 + client], name: PLAYER_NAMES[client - 1] };
}

export function keepalivePayload(identity: HostIdentity, slot: number): Uint8Array {
  const name = identity.name;
  const bytes = new Uint8Array(1 + 4 + (name.length + 1) * 2);
  bytes[0] = slot;
  bytes.set(identity.address, 1);
  for (let i = 0; i < name.length; i++) bytes[5 + 2 * i] = name.charCodeAt(i);
  return bytes;
}

/** 5 bytes, as in the captured client Disconnect `05 0A C0 02 00 | 02 0A 0A 0A EF`. */
export function disconnectPayload(identity: HostIdentity, slot: number): Uint8Array {
  return Uint8Array.of(slot, ...identity.address);
}
