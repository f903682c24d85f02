// The numbers that identify a capture's format: the classic pcap magics, the pcapng
// block types the reader takes, and the link types the UDP decoder takes apart
// (udp.ts), with the names of a few others for the message that refuses them.

/** Link types the UDP decoder takes apart (udp.ts). */
export const SUPPORTED_LINK_TYPES: ReadonlyMap<number, string> = new Map([
  [0, 'BSD loopback (NULL)'],
  [1, 'Ethernet'],
  [12, 'raw IP (DLT_RAW)'],
  [14, 'raw IP (DLT_RAW, OpenBSD)'],
  [101, 'raw IP'],
  [108, 'OpenBSD loopback (LOOP)'],
  [113, 'Linux cooked (SLL)'],
  [228, 'raw IPv4'],
  [276, 'Linux cooked v2 (SLL2)'],
]);

export function linkTypeName(linkType: number): string {
  return SUPPORTED_LINK_TYPES.get(linkType) ?? KNOWN_OTHER_LINK_TYPES.get(linkType) ?? `link type ${linkType}`;
}

const KNOWN_OTHER_LINK_TYPES: ReadonlyMap<number, string> = new Map([
  [105, 'IEEE 802.11'],
  [127, 'IEEE 802.11 radiotap'],
  [147, 'user-defined (DLT_USER0)'],
  [229, 'raw IPv6'],
  [249, 'USB'],
]);

/** The supported link types' numbers, for messages. */
export function supportedList(): string {
  return [...SUPPORTED_LINK_TYPES.keys()].join(', ');
}

export const PCAPNG_SHB = 0x0a0d0d0a;
export const PCAPNG_IDB = 0x00000001;
export const PCAPNG_OPB = 0x00000002; // obsolete Packet Block
export const PCAPNG_SPB = 0x00000003;
export const PCAPNG_EPB = 0x00000006;
export const BYTE_ORDER_MAGIC = 0x1a2b3c4d;

/** Classic pcap magics as read little-endian from the first four bytes. */
export const CLASSIC_MAGICS: ReadonlyMap<number, { littleEndian: boolean; nanosecond: boolean; modified: boolean }> =
  new Map([
    [0xa1b2c3d4, { littleEndian: true, nanosecond: false, modified: false }],
    [0xd4c3b2a1, { littleEndian: false, nanosecond: false, modified: false }],
    [0xa1b23c4d, { littleEndian: true, nanosecond: true, modified: false }],
    [0x4d3cb2a1, { littleEndian: false, nanosecond: true, modified: false }],
    [0xa1b2cd34, { littleEndian: true, nanosecond: false, modified: true }],
    [0x34cdb2a1, { littleEndian: false, nanosecond: false, modified: true }],
  ]);

/** "A1 B2 C3 D4", for messages. */
export function hexBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(' ');
}
