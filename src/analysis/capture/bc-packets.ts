// Reading a capture from end to end: each packet to its UDP datagram, each
// payload classified (payload-classifier.ts), each BC datagram placed on its
// connection with its sender.
//
// The side that sends peer id 0x01 is the server (docs/sources.md 5); each other
// address:port that talks to it is one client connection, whose slot is the
// peer id its datagrams carry once the server has given it one (0xFF before).
import { floorToSecondUs } from '../../core/engine/index.js';
import { GAMESPY_FIRST_BYTE, decodeDialect } from '../../core/codec/index.js';
import type { DecodedDatagram, DialectResult } from '../../core/codec/index.js';
import { connectAckSlot } from './wire-walk.js';
import { PayloadClassifier, onBcPort } from './payload-classifier.js';
import type { Reading } from './payload-classifier.js';
import type { Role } from '../../model/transport/index.js';
import {
  FRAME_SKIP_TEXT,
  PacketTimeline,
  endpointKey,
  formatEndpoint,
  newMutableUdp,
  openCapture,
  udpInto,
} from '../../core/pcap/index.js';
import type { CaptureError, CaptureFormat, MutableUdp, ReaderOptions } from '../../core/pcap/index.js';

/** Client connections followed in one capture (a bound on hostile input; a server has at most 16). */
export const MAX_CONNECTIONS = 4096;

export interface CaptureEndpoint {
  readonly key: number;
  readonly ip: number;
  readonly port: number;
  /** "10.10.10.1:22101". */
  readonly label: string;
}

/** One client's conversation with one server, as the capture shows it. */
export interface CaptureConnection {
  /** 1-based, in order of first appearance: the trace's `client` number. */
  readonly index: number;
  readonly server: CaptureEndpoint;
  readonly client: CaptureEndpoint;
  /** The slot the server's ConnectAck gave it, or its datagrams carry; null before either. */
  slot: number | null;
  /** The client's first datagram in the capture is unassigned (0xFF): the capture holds the connection from its start. */
  startSeen: boolean;
  /** Relative times (µs) of its first and last datagram. */
  firstUs: number;
  lastUs: number;
}

/** A BC datagram of the capture, decrypted (when it was encrypted). The object and its bytes are valid during the callback only. */
export interface BcDatagram {
  /** Packet number in the file (1-based). */
  readonly number: number;
  /** µs since the capture's origin (the whole second of its first packet). */
  readonly timeUs: number;
  readonly connection: CaptureConnection;
  readonly from: Role;
  /** The UDP payload as captured (a view, valid during the callback). */
  readonly wire: Uint8Array;
  /** Decrypted bytes (or the plaintext payload): a view, valid during the callback. */
  readonly plain: Uint8Array;
  /** `plain` in the stock form the model reads (docs/sources.md 30): `plain` itself unless it was read only in a reimplementation's form. */
  readonly stock: Uint8Array;
  readonly reading: Reading;
  readonly peerId: number;
  readonly messageCount: number;
  /** The codec's decoding of `plain` (during the callback; it allocates, the analyzer does without). */
  decode(): DecodedDatagram;
  /** The dialect reading of `plain` (docs/sources.md 30): messages, their wire forms and the deviations named. */
  dialect(): DialectResult & { readonly ok: true };
  /** The packet's pcapng comment, when asked for. */
  readonly comment: string | null;
}

export interface ScanStats {
  readonly file: string;
  format: CaptureFormat | null;
  sizeBytes: number;
  /** Packets (records and packet blocks) read, skipped ones included. */
  packets: number;
  /** UDP datagrams found in them. */
  udp: number;
  bc: number;
  encrypted: number;
  plaintext: number;
  gamespy: { queries: number; responses: number };
  tooShort: number;
  /** UDP payloads that are not BC, by reason. */
  other: Record<string, number>;
  /** Packets with no usable UDP datagram, by reason (link type, not IPv4, fragment, …). */
  skipped: Record<string, number>;
  /** BC datagrams whose peer id contradicts the side its address plays (counted, kept). */
  roleConflicts: number;
  /** Packets whose timestamp is earlier than the one before. */
  outOfOrder: number;
  /** The timestamps in file order: jumps of the clock (packet-timeline.ts). */
  timeline: PacketTimeline;
  /** Absolute time (µs since 1970) of the first packet, and the origin of relative times. */
  firstPacketUs: number | null;
  originUs: number;
  /** Relative time of the last packet. */
  endUs: number;
  connections: CaptureConnection[];
  /** Set when reading stopped early: everything before it was used. */
  error: CaptureError | null;
}

export interface ScanOptions extends ReaderOptions {
  /** Called for every BC datagram, in file order. */
  readonly onDatagram?: (datagram: BcDatagram) => void;
  /** Called before each packet is handed over: return true to stop reading (`| head`). */
  readonly shouldStop?: () => boolean;
}

export type ScanResult =
  | { readonly ok: true; readonly stats: ScanStats }
  | { readonly ok: false; readonly error: CaptureError };

/**
 * Reads a capture from end to end: every packet to its UDP datagram, every
 * payload classified, every BC datagram handed to `onDatagram` with its
 * connection and sender. Fails (ok: false) only when the file is not a capture
 * at all; a problem later stops the reading and is kept in `stats.error`.
 */
export function scanCapture(path: string, options: ScanOptions = {}): ScanResult {
  const opened = openCapture(path, options);
  if (!opened.ok) return opened;
  const reader = opened.reader;
  const stats: ScanStats = {
    file: path,
    format: reader.format,
    sizeBytes: reader.size,
    packets: 0,
    udp: 0,
    bc: 0,
    encrypted: 0,
    plaintext: 0,
    gamespy: { queries: 0, responses: 0 },
    tooShort: 0,
    other: {},
    skipped: {},
    roleConflicts: 0,
    outOfOrder: 0,
    timeline: new PacketTimeline(),
    firstPacketUs: null,
    originUs: 0,
    endUs: 0,
    connections: [],
    error: null,
  };
  const peers = new PeerRegistry(stats.connections);
  const classifier = new PayloadClassifier();
  const udp: MutableUdp & { payload: Uint8Array } = { ...newMutableUdp(), payload: new Uint8Array(0) };
  const view = new DatagramView();
  try {
    for (;;) {
      if (options.shouldStop?.()) break;
      const step = reader.next();
      if (step.kind === 'end') break;
      if (step.kind === 'error') {
        stats.error = step.error;
        break;
      }
      stats.packets++;
      if (step.kind === 'skip') {
        bump(
          stats.skipped,
          step.reason === 'unsupported-link-type'
            ? FRAME_SKIP_TEXT['unsupported-link-type']
            : step.reason === 'unknown-interface'
              ? 'undescribed interface'
              : 'bad packet block',
        );
        continue;
      }
      const packet = step.packet;
      if (stats.firstPacketUs === null) {
        stats.firstPacketUs = packet.timeUs;
        // Relative times count from the whole second of the first packet: a bcsim export, which
        // starts its clock at a whole second, then shows simulated time.
        stats.originUs = floorToSecondUs(packet.timeUs);
      }
      const timeUs = packet.timeUs - stats.originUs;
      if (stats.timeline.see(stats.packets, timeUs)) stats.outOfOrder++;
      if (timeUs > stats.endUs) stats.endUs = timeUs;
      const skip = udpInto(packet.linkType, packet.data, udp);
      if (skip !== null) {
        bump(stats.skipped, FRAME_SKIP_TEXT[skip]);
        continue;
      }
      stats.udp++;
      udp.payload = packet.data.subarray(udp.payloadStart, udp.payloadEnd);
      const kind = classifier.kind(udp.payload, onBcPort(udp.srcPort) || onBcPort(udp.dstPort));
      if (kind === 'too-short') {
        stats.tooShort++;
        continue;
      }
      if (kind === 'gamespy') {
        // The query goes to the game's port, the reply comes from it.
        if (onBcPort(udp.srcPort) && !onBcPort(udp.dstPort)) stats.gamespy.responses++;
        else stats.gamespy.queries++;
        continue;
      }
      if (kind === 'other') {
        bump(
          stats.other,
          classifier.otherReason === 'undecodable' ? 'undecodable on a BC port' : 'not BC (other ports)',
        );
        continue;
      }
      const placed = peers.place(udp.srcIp, udp.srcPort, udp.dstIp, udp.dstPort, classifier.peerId, timeUs);
      if (placed === null) {
        bump(stats.other, `BC beyond ${MAX_CONNECTIONS} connections`);
        continue;
      }
      stats.bc++;
      if (classifier.reading === 'encrypted') stats.encrypted++;
      else stats.plaintext++;
      if (placed.conflict) stats.roleConflicts++;
      const plain = classifier.plain;
      // The server's ConnectAck names the client's slot before the client's datagrams carry it.
      if (placed.from === 'server' && placed.connection.slot === null) {
        const slot = connectAckSlot(classifier.stock);
        if (slot >= 0) placed.connection.slot = slot;
      }
      if (options.onDatagram !== undefined) {
        // One object, refilled for every datagram (valid during the callback, like its bytes).
        view.number = packet.number;
        view.timeUs = timeUs;
        view.connection = placed.connection;
        view.from = placed.from;
        view.wire = udp.payload;
        view.plain = plain;
        view.stock = classifier.stock;
        view.reading = classifier.reading;
        view.peerId = classifier.peerId;
        view.messageCount = classifier.messageCount;
        view.comment = packet.comment;
        options.onDatagram(view);
      }
    }
  } finally {
    reader.close();
  }
  return { ok: true, stats };
}

/** The BcDatagram handed to `onDatagram`: one per scan, refilled for each datagram. */
class DatagramView implements BcDatagram {
  number = 0;
  timeUs = 0;
  connection = null as unknown as CaptureConnection;
  from: Role = 'client';
  wire: Uint8Array = new Uint8Array(0);
  plain: Uint8Array = new Uint8Array(0);
  stock: Uint8Array = new Uint8Array(0);
  reading: Reading = 'encrypted';
  peerId = 0;
  messageCount = 0;
  comment: string | null = null;

  decode(): DecodedDatagram {
    return this.dialect().datagram;
  }

  dialect(): DialectResult & { readonly ok: true } {
    const result = decodeDialect(this.plain);
    if (result.ok) return result;
    // Unreachable for a classified datagram; the partial reading keeps the contract.
    const datagram = { peerId: this.plain[0], messageCount: this.plain[1], messages: result.partial.messages };
    return { ok: true, datagram, forms: [], deviations: [], stock: this.plain };
  }
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

interface Flow {
  readonly connection: CaptureConnection;
  readonly serverKey: number;
  clientSeen: boolean;
}

/**
 * Connections by address: the endpoint that sends peer id 0x01 is the server;
 * a flow's roles are fixed by its first BC datagram. A datagram against them
 * (a "server" sending 0xFF, say) is counted as a conflict and kept on the flow.
 */
class PeerRegistry {
  private readonly flows = new Map<number, Map<number, Flow>>();
  private readonly endpoints = new Map<number, CaptureEndpoint>();

  constructor(private readonly connections: CaptureConnection[]) {}

  /** The datagram's connection and sender; null for a new flow past MAX_CONNECTIONS. */
  place(
    srcIp: number,
    srcPort: number,
    dstIp: number,
    dstPort: number,
    peerId: number,
    timeUs: number,
  ): { connection: CaptureConnection; from: Role; conflict: boolean } | null {
    const src = endpointKey(srcIp, srcPort);
    const dst = endpointKey(dstIp, dstPort);
    let flow = this.flows.get(src)?.get(dst);
    if (flow === undefined && this.connections.length >= MAX_CONNECTIONS) return null;
    if (flow === undefined) {
      const senderIsServer = peerId === 0x01;
      const server = senderIsServer ? this.endpoint(srcIp, srcPort) : this.endpoint(dstIp, dstPort);
      const client = senderIsServer ? this.endpoint(dstIp, dstPort) : this.endpoint(srcIp, srcPort);
      const connection: CaptureConnection = {
        index: this.connections.length + 1,
        server,
        client,
        slot: null,
        startSeen: false,
        firstUs: timeUs,
        lastUs: timeUs,
      };
      this.connections.push(connection);
      flow = { connection, serverKey: server.key, clientSeen: false };
      this.link(src, dst, flow);
      this.link(dst, src, flow);
    }
    const connection = flow.connection;
    const from: Role = src === flow.serverKey ? 'server' : 'client';
    if (timeUs > connection.lastUs) connection.lastUs = timeUs;
    if (from === 'client') {
      // The capture holds the connection from its start when the client's first datagram has no slot yet.
      if (!flow.clientSeen && connection.firstUs === timeUs && peerId === 0xff) connection.startSeen = true;
      flow.clientSeen = true;
      if (peerId !== 0xff && peerId !== 0x01) connection.slot = peerId;
    }
    // The server's peer id is 0x01; a client's never is.
    const conflict = (from === 'server') !== (peerId === 0x01);
    return { connection, from, conflict };
  }

  private link(a: number, b: number, flow: Flow): void {
    let inner = this.flows.get(a);
    if (inner === undefined) this.flows.set(a, (inner = new Map()));
    inner.set(b, flow);
  }

  private endpoint(ip: number, port: number): CaptureEndpoint {
    const key = endpointKey(ip, port);
    let e = this.endpoints.get(key);
    if (e === undefined) this.endpoints.set(key, (e = { key, ip, port, label: formatEndpoint(ip, port) }));
    return e;
  }
}

/**
 * How many client connections the capture holds, up to `limit`, read cheaply:
 * UDP flows touching a BC port (or whose cleartext first byte is a plausible
 * peer id), not GameSpy, counted without decrypting. Stops at `limit`. Used to
 * choose between the one-client and the many-client direction names before
 * streaming; never throws (an unreadable file counts 0).
 */
export function countConnections(path: string, limit = 2): number {
  const opened = openCapture(path);
  if (!opened.ok) return 0;
  const reader = opened.reader;
  const flows: Array<[number, number]> = [];
  const u = newMutableUdp();
  try {
    for (;;) {
      const step = reader.next();
      if (step.kind === 'end' || step.kind === 'error') break;
      if (step.kind === 'skip') continue;
      const data = step.packet.data;
      if (udpInto(step.packet.linkType, data, u) !== null) continue;
      if (u.payloadEnd - u.payloadStart < 2 || data[u.payloadStart] === GAMESPY_FIRST_BYTE) continue;
      const first = data[u.payloadStart];
      if (!(onBcPort(u.srcPort) || onBcPort(u.dstPort) || (first >= 1 && first <= 32) || first === 0xff)) continue;
      const a = endpointKey(u.srcIp, u.srcPort);
      const b = endpointKey(u.dstIp, u.dstPort);
      const lo = Math.min(a, b);
      const hi = Math.max(a, b);
      if (flows.some(([x, y]) => x === lo && y === hi)) continue;
      flows.push([lo, hi]);
      if (flows.length >= limit) break;
    }
  } finally {
    reader.close();
  }
  return flows.length;
}
