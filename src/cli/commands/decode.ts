// `bcsim decode <hex…> | - | --file PATH [--json]`: decode one datagram and annotate every field.
// `bcsim decode FILE [--json]`: every BC datagram of a capture, one trace line each.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  MAX_DATAGRAM_BYTES,
  TYPE_ACK,
  decodeDialect,
  dialectResultToJson,
  decrypt,
  describeMessage,
  formOf,
  isLowType,
  packDataKey,
  parseHex,
  peerLabel,
  seqBefore,
  toHex,
} from '../../core/codec/index.js';
import type { Deviation, DialectResult, Located, MessageForm } from '../../core/codec/index.js';
import {
  countConnections,
  droppedCauseOf,
  scanCapture,
  census,
  censusLine,
  isoTime,
} from '../../analysis/capture/index.js';
import type { BcDatagram } from '../../analysis/capture/index.js';
import type { DropEvent, SendEvent, BytesMode } from '../../model/trace/index.js';
import { eventToJson, formatEvent, traceHeader } from '../../model/trace/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from '../io.js';
import { deprecated } from '../deprecated.js';
import type { CliIO } from '../io.js';
import { captureErrorLine } from './analyze.js';
import { checksumAnswerOf, checksumAnswerText } from './decode-checksum.js';
import { systemErrorWords } from '../../core/files/index.js';

export interface DecodeOptions {
  json?: boolean;
  /** Read the hex from this file instead of the arguments. */
  file?: string;
  /** Decrypt (AlbyRules, docs/sources.md 22) before decoding; --plain never does; neither tries both. */
  encrypted?: boolean;
  plain?: boolean;
  /** Decode every BC datagram of this pcap or pcapng capture instead. */
  pcap?: string;
}

type Reading = 'plaintext' | 'encrypted';

/** How well a reading parses: in the stock form, only with the forms of docs/sources.md 30, or not at all. */
function parseScore(bytes: Uint8Array): number {
  const result = decodeDialect(bytes);
  if (!result.ok) return 0;
  return result.stock === bytes ? 2 : 1;
}

/**
 * Which reading of the bytes to show. Forced by --encrypted or --plain;
 * otherwise both are tried and the one that parses better wins (the stock form
 * before the forms of docs/sources.md 30), plaintext on a tie.
 */
function chooseReading(
  wire: Uint8Array,
  options: DecodeOptions,
): { reading: Reading; bytes: Uint8Array; note: string; otherParses: boolean | null } {
  if (options.encrypted && options.plain) throw new UsageError('decode: give --encrypted or --plain, not both');
  if (options.encrypted)
    return {
      reading: 'encrypted',
      bytes: decrypt(wire),
      note: 'encrypted (--encrypted): decrypted with AlbyRules',
      otherParses: null,
    };
  if (options.plain) return { reading: 'plaintext', bytes: wire, note: 'plaintext (--plain)', otherParses: null };
  const plain = parseScore(wire);
  const decrypted = decrypt(wire);
  const encrypted = parseScore(decrypted);
  if (encrypted > plain)
    return {
      reading: 'encrypted',
      bytes: decrypted,
      note: `encrypted: decrypted with AlbyRules (as plaintext it ${plain > 0 ? 'parses only with deviations' : 'does not parse'})`,
      otherParses: plain > 0,
    };
  if (plain > 0 && encrypted > 0)
    return {
      reading: 'plaintext',
      bytes: wire,
      note: 'plaintext (it also parses decrypted; --encrypted shows that reading)',
      otherParses: true,
    };
  if (plain > 0)
    return { reading: 'plaintext', bytes: wire, note: 'plaintext (decrypted it does not parse)', otherParses: false };
  return {
    reading: 'plaintext',
    bytes: wire,
    note: 'neither plaintext nor decrypted parses; shown as plaintext',
    otherParses: false,
  };
}

export function decodeCommand(hexParts: string[], options: DecodeOptions, io: CliIO): number {
  if (options.pcap !== undefined) deprecated(io, `decode --pcap ${options.pcap} is now decode ${options.pcap}`);
  const capture = options.pcap ?? captureArgument(hexParts, io.cwd);
  if (capture !== undefined) {
    if (options.pcap !== undefined && (hexParts.length > 0 || options.file !== undefined))
      throw new UsageError('decode: give hex, --file or a capture, not more than one');
    if (options.encrypted || options.plain)
      throw new UsageError(
        'decode: a capture is read encrypted or, failing that, plaintext; --encrypted and --plain do not apply',
      );
    return decodePcap(capture, options.json === true, io);
  }
  const text = inputText(hexParts, options, io);
  const parsed = parseHex(text);
  if (!parsed.ok) throw new UsageError(`decode: input is not hex at character ${parsed.offset}: ${parsed.reason}`);
  if (parsed.bytes.length > MAX_DATAGRAM_BYTES) {
    io.stderr(
      `bcsim: warning: datagram is ${parsed.bytes.length} bytes, over the ${MAX_DATAGRAM_BYTES}-byte limit the stock engine builds or accepts\n`,
    );
  }
  const { reading, bytes, note, otherParses } = chooseReading(parsed.bytes, options);
  const result = decodeDialect(bytes);
  if (options.json) {
    const decoded = dialectResultToJson(bytes, result);
    const messages = result.ok ? result.datagram.messages : result.partial.messages;
    const json = {
      ...decoded,
      // A checksum answer's hashes, named (decode-checksum.ts).
      messages: decoded.messages.map((m, i) => {
        const answer = checksumAnswerOf(messages[i]);
        return answer === null ? m : { ...m, checksumAnswer: answer };
      }),
      reading,
      otherReadingParses: otherParses,
      ...(reading === 'encrypted' ? { decryptedHex: toHex(bytes) } : {}),
    };
    io.stdout(`${JSON.stringify(json)}\n`);
  } else {
    io.stdout(formatListing(bytes, result, note));
  }
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * `bcsim decode FILE`: one argument that is not hex names a capture, as `bcsim analyze FILE`
 * takes it (a path made only of hex digits would read as hex: give it as ./PATH).
 */
function captureArgument(hexParts: readonly string[], cwd: string): string | undefined {
  if (hexParts.length !== 1 || hexParts[0] === '-') return undefined;
  const hex = parseHex(hexParts[0]);
  if (hex.ok) return undefined;
  if (!existsSync(resolve(cwd, hexParts[0])))
    throw new UsageError(
      `decode ${hexParts[0]}: neither hex (at character ${hex.offset}: ${hex.reason}) nor a capture file (no such file)`,
    );
  return hexParts[0];
}

/**
 * The hex text from the arguments, from `-` (stdin) or from --file. In a file or on
 * stdin, `#` starts a comment to the end of the line; comments are blanked, not cut,
 * so the character offsets in errors still point into the input as given.
 */
function inputText(hexParts: string[], options: DecodeOptions, io: CliIO): string {
  const stdin = hexParts.length === 1 && hexParts[0] === '-';
  if (options.file !== undefined && hexParts.length > 0)
    throw new UsageError('decode: give the hex as arguments, as - (stdin) or with --file, not both');
  if (options.file === undefined && hexParts.length === 0)
    throw new UsageError('decode: no input: give the hex as arguments, - to read stdin, or --file PATH');
  if (options.file !== undefined) {
    const path = options.file;
    return blankComments(readInput(`--file ${path}`, () => readFileSync(resolve(io.cwd, path), 'utf8')));
  }
  if (stdin) {
    const read = io.readStdin;
    if (!read) throw new UsageError('decode: standard input is not available');
    return blankComments(readInput('stdin', read));
  }
  return hexParts.join(' ');
}

function readInput(what: string, read: () => string): string {
  try {
    return read();
  } catch (error) {
    const words = systemErrorWords(error);
    if (words !== undefined) throw new UsageError(`decode: cannot read ${what} (${words})`);
    throw error;
  }
}

function blankComments(text: string): string {
  return text.replace(/#[^\n]*/g, (comment) => ' '.repeat(comment.length));
}

function formatListing(bytes: Uint8Array, result: DialectResult, reading: string): string {
  const source = result.ok ? result.datagram : result.partial;
  const lines: string[] = [];
  const peer = source.peerId === null ? 'peer ?' : `peer 0x${hexByte(source.peerId)} (${peerLabel(source.peerId)})`;
  const count =
    source.messageCount === null
      ? '? messages'
      : `${source.messageCount} message${source.messageCount === 1 ? '' : 's'}`;
  lines.push(`datagram: ${bytes.length} bytes, ${peer}, ${count}`);
  lines.push(`reading: ${reading}`);
  source.messages.forEach((message, i) => {
    lines.push(formatMessage(bytes, message, source.peerId, result.ok ? formOf(result, i) : null));
    for (const d of result.deviations)
      if (d.offset >= message.offset && d.offset < message.offset + message.size)
        lines.push(`         ${deviationText(d)}`);
  });
  if (!result.ok) lines.push(`error at offset ${result.error.offset}: ${result.error.reason}`);
  else if (result.stock !== bytes) lines.push(`stock form: ${toHex(result.stock)} (what bcsim's model reads)`);
  return `${lines.join('\n')}\n`;
}

/** "@3 deviation: …": one deviation with its byte offset in the datagram. */
export function deviationText(d: Deviation): string {
  return `@${d.offset} ${d.note}`;
}

function formatMessage(bytes: Uint8Array, message: Located, peerId: number | null, form: MessageForm | null): string {
  const raw = toHex(bytes.subarray(message.offset, message.offset + message.size));
  // Peer id 0xFF: a client without a slot, so a type-0x03 message is its connect request.
  const head = `  @${String(message.offset).padEnd(4)} ${describeMessage(message, message.size, { peerId, form })}`;
  if (message.type === TYPE_ACK) return `${head}\n         bytes: ${raw}`;
  const answer = checksumAnswerOf(message);
  const hashes = answer === null ? [] : checksumAnswerText(answer, '         ');
  return [`${head}\n         payload: ${message.payload.length ? toHex(message.payload) : '(empty)'}`, ...hashes].join(
    '\n',
  );
}

function hexByte(value: number): string {
  return value.toString(16).padStart(2, '0').toUpperCase();
}

/** A deviation line under a trace line starts under its message column. */
const DEVIATION_INDENT = ' '.repeat(14);

/** Output is written in chunks of about this many characters (as the trace does). */
const FLUSH_CHARS = 64 * 1024;

/**
 * Numbers re-sends as the trace does: per connection, sender and reliable
 * message (category, seq, fragment index), the count of earlier transmissions.
 * The wire has no "first send" note, so a seq ahead of the highest seen
 * (serial arithmetic) is a new message and starts again at 0 (a u16 wrap).
 */
class Transmissions {
  private readonly counts = new Map<number, Map<number, number>>();
  private readonly highest = new Map<number, number>();

  count(connection: number, from: Role, m: Located): number {
    if (m.type === TYPE_ACK || !m.reliable) return 0;
    const low = isLowType(m.type);
    const stream = connection * 4 + (from === 'client' ? 2 : 0) + (low ? 1 : 0);
    let map = this.counts.get(stream);
    if (map === undefined) this.counts.set(stream, (map = new Map()));
    const seq = m.seq as number;
    const key = packDataKey(m);
    const top = this.highest.get(stream);
    if (top === undefined || seqBefore(top, seq)) {
      this.highest.set(stream, seq);
      map.set(key, 1);
      return 0;
    }
    const n = map.get(key) ?? 0;
    map.set(key, n + 1);
    return n;
  }
}

/** Every BC datagram of a capture, as `send` lines of the trace (or trace-style JSON lines), then the census. */
function decodePcap(file: string, json: boolean, io: CliIO): number {
  const path = resolve(io.cwd, file);
  const many = countConnections(path) > 1;
  const clients = many ? 2 : 1;
  const bytes: BytesMode = !json && io.stdoutIsTTY ? 'short' : 'full';
  const numbering = new Transmissions();
  let pending = '';
  let shown = 0;
  const flush = () => {
    io.stdout(pending);
    pending = '';
  };
  const write = (line: string) => {
    pending += line;
    if (pending.length >= FLUSH_CHARS) flush();
  };
  let deviating = 0;
  let dropped = 0;
  const onDatagram = (d: BcDatagram) => {
    const read = d.dialect();
    const messages = read.datagram.messages;
    const deviations = read.deviations;
    if (deviations.length > 0) deviating++;
    const transmission = messages.map((m) => numbering.count(d.connection.index, d.from, m));
    const notes = messages.map((m, i) =>
      m.type === TYPE_ACK ? SendNote.Ack : transmission[i] > 0 ? SendNote.Retransmit : SendNote.FirstSend,
    );
    const forms = read.forms.length === 0 ? {} : { forms: read.forms };
    const event: SendEvent = {
      kind: 'send',
      timeUs: d.timeUs,
      client: d.connection.index,
      slot: d.connection.slot,
      from: d.from,
      bytes: d.plain,
      messages,
      notes,
      transmission,
      ...forms,
    };
    shown++;
    if (json) {
      const src = d.from === 'server' ? d.connection.server : d.connection.client;
      const dst = d.from === 'server' ? d.connection.client : d.connection.server;
      // docs/sources.md 30: deviations (and the stock form) only on datagrams that have them.
      const dialect =
        deviations.length === 0
          ? {}
          : { deviations, ...(read.stock === d.plain ? {} : { stockHex: toHex(read.stock, '') }) };
      write(
        `${JSON.stringify({ ...eventToJson(event, { bytes }), packet: d.number, src: src.label, dst: dst.label, reading: d.reading, ...dialect })}\n`,
      );
    } else {
      write(`${formatEvent(event, { bytes, clients })}\n`);
      for (const x of deviations) write(`${DEVIATION_INDENT}${deviationText(x)}\n`);
    }
    // A datagram bcsim's link (or proxy) dropped: its comment says so. As in the trace, a DROP line follows its send.
    const cause = droppedCauseOf(d.comment);
    if (cause === null) return;
    dropped++;
    const drop: DropEvent = {
      kind: 'drop',
      timeUs: d.timeUs,
      client: d.connection.index,
      slot: d.connection.slot,
      from: d.from,
      bytes: d.plain,
      messages,
      cause,
    };
    write(
      json
        ? `${JSON.stringify({ ...eventToJson(drop, { bytes }), packet: d.number })}\n`
        : `${formatEvent(drop, { bytes, clients })}\n`,
    );
  };
  let headed = false;
  const scanned = scanCapture(path, {
    onDatagram: (d) => {
      if (!headed && !json) {
        headed = true;
        write(
          `# ${file} · times in s from the whole second of the first packet · BC datagrams decrypted (AlbyRules) and decoded\n${traceHeader(bytes, clients)}\n`,
        );
      }
      onDatagram(d);
    },
    shouldStop: () => io.stdoutClosed?.() === true,
    comments: true,
  });
  if (!scanned.ok) throw new UsageError(captureErrorLine(file, scanned.error));
  const stats = scanned.stats;
  const origin = stats.firstPacketUs === null ? '' : ` · time 0 = ${isoTime(stats.originUs)}`;
  const dialect = deviating > 0 ? ` · ${deviating} with deviations from the stock form` : '';
  const drops = dropped > 0 ? ` · ${dropped} dropped by bcsim (DROP lines, from the packet comments)` : '';
  const summary = `# ${shown} BC datagrams shown${dialect}${drops} · ${censusLine(census(stats))}${origin}\n`;
  if (json) {
    flush();
    // A refusal is one line on stderr: the census gives way to it.
    if (stats.error === null) io.stderr(summary);
  } else {
    write(summary);
    flush();
  }
  if (stats.error !== null) {
    io.stderr(`bcsim: ${captureErrorLine(file, stats.error)} (the datagrams before it are shown)\n`);
    return EXIT_USAGE;
  }
  return EXIT_OK;
}
