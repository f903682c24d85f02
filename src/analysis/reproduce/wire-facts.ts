// The captured-bytes criteria of `reproduce ack-outbox` (docs/sources.md 16, 21, 26,
// 28), checked on the datagrams a run put on the wire. Each returns what it saw,
// in words, and whether the captured bytes are reproduced.
import {
  TYPE_ACK,
  TYPE_CONNECT,
  TYPE_DATA,
  TYPE_DISCONNECT,
  TYPE_GAME,
  ackFlagsLowType,
  decodeDatagram,
  toHex,
} from '../../core/codec/index.js';
import type { Located } from '../../core/codec/index.js';
import { usToSeconds } from '../../core/engine/index.js';
import type { Role } from '../../model/transport/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { SessionObserver } from '../../model/session/index.js';

/** A datagram a run sent, decoded, with its time in seconds. */
export interface Wire {
  readonly t: number;
  readonly from: Role;
  readonly bytes: Uint8Array;
  readonly messages: readonly Located[];
  readonly notes: readonly number[];
}

/** An observer that keeps client 1's datagrams (copied: the transport reuses its buffers). */
export function wireRecorder(): { observer: Pick<SessionObserver, 'datagramSent'>; sent: Wire[] } {
  const sent: Wire[] = [];
  return {
    sent,
    observer: {
      datagramSent(timeUs, from, bytes, _uids, notes, client) {
        if (client !== 1) return;
        const copy = bytes.slice();
        const decoded = decodeDatagram(copy);
        if (decoded.ok)
          sent.push({
            t: usToSeconds(timeUs),
            from,
            bytes: copy,
            messages: decoded.datagram.messages,
            notes: [...notes],
          });
      },
    },
  };
}

export interface Fact {
  readonly value: string;
  readonly matches: boolean;
}

const hexOf = (bytes: Uint8Array) => toHex(bytes, '').toUpperCase();
const messageBytes = (d: Wire, m: Located) => d.bytes.subarray(m.offset, m.offset + m.size);
/** The captured form of a reliable+ordered control message: flags_len high byte 0xC0 (docs/sources.md 3, 26). */
const isC0 = (d: Wire, m: Located) => d.bytes[m.offset + 2] === 0xc0;

const JOIN_KEEPALIVE_ACK = '01010002';
const CONNECT_ACK = '01000002';

/** docs/sources.md 12, 26: the 22-byte reliable type-0x00 keepalive, its ACK and its echo, at the join and when idle. */
export function keepaliveFact(sent: readonly Wire[]): Fact {
  const dataOf = (from: Role) =>
    sent
      .filter((d) => d.from === from)
      .flatMap((d) => d.messages.filter((m) => m.type === TYPE_DATA).map((m) => ({ d, m })));
  const client = dataOf('client');
  const server = dataOf('server');
  const join = client[0];
  const acks = sent
    .filter((d) => d.from === 'server')
    .flatMap((d) => d.messages.filter((m) => m.type === TYPE_ACK).map((m) => hexOf(messageBytes(d, m))));
  const problems: string[] = [];
  const form = (x: { d: Wire; m: Located }) =>
    `${x.m.size} B${isC0(x.d, x.m) ? ' C0' : x.m.type !== TYPE_ACK && x.m.reliable ? '' : ' unreliable'}`;
  const captured = (x: { d: Wire; m: Located }) => x.m.size === 22 && isC0(x.d, x.m);
  if (join === undefined) problems.push('no join keepalive');
  else if (!captured(join) || join.m.seq !== 1) problems.push(`join ${form(join)} seq ${join.m.seq}`);
  if (!acks.includes(JOIN_KEEPALIVE_ACK)) problems.push('no ACK 01 01 00 02');
  if (server[0] === undefined) problems.push('no echo');
  else if (!captured(server[0])) problems.push(`echo ${form(server[0])}`);
  // Idle keepalives: every later type-0x00 first send, from either side.
  const idle = [...client.slice(1), ...server.slice(1)].filter(
    (x) => x.d.notes[x.d.messages.indexOf(x.m)] === SendNote.FirstSend,
  );
  const idleBad = idle.filter((x) => !captured(x));
  const decompiled = sent
    .filter((d) => d.t > (join?.d.t ?? 0) + 1)
    .some((d) => d.messages.some((m) => m.type === TYPE_CONNECT));
  if (decompiled) problems.push('idle: type 0x02');
  if (idleBad.length > 0) problems.push(`idle: ${form(idleBad[0])}`);
  // Each reliable idle keepalive from the client gets a low-type ACK of its seq from the server.
  const ackedLow = new Set(
    sent
      .filter((d) => d.from === 'server')
      .flatMap((d) => d.messages.filter((m) => m.type === TYPE_ACK && ackFlagsLowType(m.flags)).map((m) => m.seq)),
  );
  const unacked = client
    .slice(1)
    .filter((x) => x.m.type !== TYPE_ACK && x.m.reliable && !ackedLow.has(x.m.seq as number)).length;
  if (unacked > 0) problems.push(`${unacked} idle not ACKed`);
  const idleText = idle.length === 0 && !decompiled ? 'no idle one' : `${idle.length} idle`;
  return {
    value:
      problems.length === 0
        ? `22 B C0, ACK 01 01 00 02, echoed; ${idleText}`
        : `${problems.join('; ')}${problems.length < 3 ? `; ${idleText}` : ''}`,
    matches: problems.length === 0,
  };
}

/** docs/sources.md 26: the server ACKs the Connect with 01 00 00 02, in a datagram after the connect reply. */
export function connectAckFact(sent: readonly Wire[]): Fact {
  const server = sent.filter((d) => d.from === 'server');
  const reply = server.findIndex((d) => d.messages.some((m) => m.type === 0x03));
  const withAck = server.findIndex((d) =>
    d.messages.some((m) => m.type === TYPE_ACK && hexOf(messageBytes(d, m)) === CONNECT_ACK),
  );
  if (withAck < 0) return { value: 'never ACKed', matches: false };
  const inReply = withAck === reply;
  return {
    value: inReply
      ? 'in the connect reply'
      : `01 00 00 02, ${withAck - reply} datagram${withAck - reply === 1 ? '' : 's'} after the reply`,
    matches: !inReply,
  };
}

/** docs/sources.md 16 and the join table: the round-2 response's first fragment leaves in one 418-byte datagram with the ACK of request r2. */
export function round2Fact(sent: readonly Wire[]): Fact {
  const d = sent.find(
    (x) => x.from === 'client' && x.messages.some((m) => m.type === TYPE_GAME && m.fragment && m.fragIndex === 0),
  );
  if (d === undefined) return { value: 'no fragment', matches: false };
  const request = requestSeq(sent, 2);
  const parts = d.messages.map((m) =>
    m.type === TYPE_ACK
      ? `ACK ${ackFlagsLowType(m.flags) ? 'L' : 'H'}${m.seq}`
      : m.fragment
        ? `frag ${m.fragIndex}`
        : `msg ${m.type}`,
  );
  const matches =
    d.bytes.length === 418 &&
    d.messages.length === 2 &&
    d.messages.some((m) => m.type === TYPE_ACK && !ackFlagsLowType(m.flags) && m.seq === request);
  return { value: `${d.bytes.length} B: ${parts.join(' + ')}`, matches };
}

/** The seq of the server's checksum request of `round` (payload [0x20][round]). */
function requestSeq(sent: readonly Wire[], round: number): number | null {
  for (const d of sent) {
    if (d.from !== 'server') continue;
    for (const m of d.messages)
      if (m.type === TYPE_GAME && !m.fragment && m.payload[0] === 0x20 && m.payload[1] === round) return m.seq;
  }
  return null;
}

/** docs/sources.md R1–R3: the join's three captured datagrams, whole. */
const CAPTURED_JOIN = {
  connectReply: '010203 06C0000002 321B80000020000800736372697074732F07004170702E70796320',
  checksumResponseR0: '0201 321A8000002100 43E20C7E2FCBAF4D010077B63E3768A7A0F800',
  checksumRequestR2: '0101 321E8002002002 0D00736372697074732F7368697073 05002A2E70796321',
};

/** The connect reply, the client's first checksum response and request r2 are the captured bytes, each alone in its datagram. */
export function joinCapturedFact(sent: readonly Wire[]): Fact {
  const want = (text: string) => text.replace(/\s/g, '');
  const server = sent.filter((d) => d.from === 'server');
  const client = sent.filter((d) => d.from === 'client');
  const got = {
    connectReply: server[0],
    checksumResponseR0: client.find((d) => d.messages.some((m) => m.type === TYPE_GAME && !m.fragment)),
    checksumRequestR2: server.find((d) =>
      d.messages.some((m) => m.type === TYPE_GAME && !m.fragment && m.payload[0] === 0x20 && m.payload[1] === 2),
    ),
  };
  const names = {
    connectReply: 'connect reply',
    checksumResponseR0: 'response r0',
    checksumRequestR2: 'request r2',
  } as const;
  const off = (Object.keys(got) as Array<keyof typeof got>).filter(
    (k) => got[k] === undefined || hexOf(got[k].bytes) !== want(CAPTURED_JOIN[k]),
  );
  const describe = (k: keyof typeof got) => {
    const d = got[k];
    return d === undefined ? `no ${names[k]}` : `${names[k]} ${d.bytes.length} B in ${d.messages.length} messages`;
  };
  return { value: off.length === 0 ? 'all 3 byte-exact' : off.map(describe).join('; '), matches: off.length === 0 };
}

/**
 * The captured client Disconnect datagram, docs/sources.md R4 and 21, up to its ACKed seqs (39, 40);
 * the whole is 02 03 05 0A C0 02 00 02 0A 0A 0A EF 01 27 00 00 01 28 00 00.
 */
const DISCONNECT_PREFIX = '0203050AC00200020A0A0AEF';

/** docs/sources.md 21, 28: the Disconnect datagram is the captured 20 bytes, with exactly 2 stale ACKs. */
export function disconnectFact(bye: Wire | null): Fact {
  if (bye === null) return { value: 'no Disconnect', matches: false };
  const disconnect = bye.messages.find((m) => m.type === TYPE_DISCONNECT);
  const stale = bye.notes.filter((n) => n === SendNote.StaleAck).length;
  const acks = bye.messages.filter((m) => m.type === TYPE_ACK);
  const hex = hexOf(bye.bytes);
  // Byte for byte, except the two ACKed seqs (they count the server's messages in the session).
  const matches =
    hex.startsWith(DISCONNECT_PREFIX) &&
    bye.bytes.length === 20 &&
    acks.length === 2 &&
    acks.every(
      (m) => m.size === 4 && !ackFlagsLowType(m.flags) && bye.notes[bye.messages.indexOf(m)] === SendNote.StaleAck,
    );
  const seq = disconnect !== undefined && disconnect.type !== TYPE_ACK ? disconnect.seq : null;
  return {
    value: `low seq ${seq}, ${stale} stale ACK${stale === 1 ? '' : 's'}, ${bye.bytes.length} B${matches ? ', the captured bytes' : ''}`,
    matches,
  };
}
