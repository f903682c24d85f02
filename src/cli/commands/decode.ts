// `bcsim decode <hex…> | - | --file PATH [--json]`: decode one datagram and annotate every field.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_DATAGRAM_BYTES, decodeDatagram, decodeResultToJson, decrypt, describeMessage, parseHex, peerLabel, toHex } from '../../codec/index.js';
import type { Located } from '../../codec/index.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../io.js';
import type { CliIO } from '../io.js';

export interface DecodeOptions {
  json?: boolean;
  /** Read the hex from this file instead of the arguments. */
  file?: string;
  /** Decrypt (AlbyRules, DECISIONS.md 22) before decoding; --plain never does; neither tries both. */
  encrypted?: boolean;
  plain?: boolean;
}

type Reading = 'plaintext' | 'encrypted';

/**
 * Which reading of the bytes to show. Forced by --encrypted or --plain;
 * otherwise both are tried and the one that parses wins, plaintext on a tie.
 */
function chooseReading(wire: Uint8Array, options: DecodeOptions): { reading: Reading; bytes: Uint8Array; note: string; otherParses: boolean | null } {
  if (options.encrypted && options.plain) throw new UsageError('decode: give --encrypted or --plain, not both');
  if (options.encrypted) return { reading: 'encrypted', bytes: decrypt(wire), note: 'encrypted (--encrypted): decrypted with AlbyRules', otherParses: null };
  if (options.plain) return { reading: 'plaintext', bytes: wire, note: 'plaintext (--plain)', otherParses: null };
  const plainOk = decodeDatagram(wire).ok;
  const decrypted = decrypt(wire);
  const encryptedOk = decodeDatagram(decrypted).ok;
  if (!plainOk && encryptedOk) return { reading: 'encrypted', bytes: decrypted, note: 'encrypted: decrypted with AlbyRules (as plaintext it does not parse)', otherParses: false };
  if (plainOk && encryptedOk) return { reading: 'plaintext', bytes: wire, note: 'plaintext (it also parses decrypted; --encrypted shows that reading)', otherParses: true };
  if (plainOk) return { reading: 'plaintext', bytes: wire, note: 'plaintext (decrypted it does not parse)', otherParses: false };
  return { reading: 'plaintext', bytes: wire, note: 'neither plaintext nor decrypted parses; shown as plaintext', otherParses: false };
}

export function decodeCommand(hexParts: string[], options: DecodeOptions, io: CliIO): number {
  const text = inputText(hexParts, options, io);
  const parsed = parseHex(text);
  if (!parsed.ok) throw new UsageError(`decode: input is not hex at character ${parsed.offset}: ${parsed.reason}`);
  if (parsed.bytes.length > MAX_DATAGRAM_BYTES) {
    io.stderr(`bcsim: warning: datagram is ${parsed.bytes.length} bytes, over the ${MAX_DATAGRAM_BYTES}-byte limit the stock engine builds or accepts\n`);
  }
  const { reading, bytes, note, otherParses } = chooseReading(parsed.bytes, options);
  const result = decodeDatagram(bytes);
  if (options.json) {
    const json = { ...decodeResultToJson(bytes, result), reading, otherReadingParses: otherParses, ...(reading === 'encrypted' ? { decryptedHex: toHex(bytes) } : {}) };
    io.stdout(`${JSON.stringify(json)}\n`);
  } else {
    io.stdout(formatListing(bytes, result, note));
  }
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * The hex text from the arguments, from `-` (stdin) or from --file. In a file or on
 * stdin, `#` starts a comment to the end of the line; comments are blanked, not cut,
 * so the character offsets in errors still point into the input as given.
 */
function inputText(hexParts: string[], options: DecodeOptions, io: CliIO): string {
  const stdin = hexParts.length === 1 && hexParts[0] === '-';
  if (options.file !== undefined && hexParts.length > 0) throw new UsageError('decode: give the hex as arguments, as - (stdin) or with --file, not both');
  if (options.file === undefined && hexParts.length === 0) throw new UsageError('decode: no input: give the hex as arguments, - to read stdin, or --file PATH');
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
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string') throw new UsageError(`decode: cannot read ${what} (${code})`);
    throw error;
  }
}

function blankComments(text: string): string {
  return text.replace(/#[^\n]*/g, (comment) => ' '.repeat(comment.length));
}

function formatListing(bytes: Uint8Array, result: ReturnType<typeof decodeDatagram>, reading: string): string {
  const source = result.ok ? result.datagram : result.partial;
  const lines: string[] = [];
  const peer = source.peerId === null ? 'peer ?' : `peer 0x${hexByte(source.peerId)} (${peerLabel(source.peerId)})`;
  const count = source.messageCount === null ? '? messages' : `${source.messageCount} message${source.messageCount === 1 ? '' : 's'}`;
  lines.push(`datagram: ${bytes.length} bytes, ${peer}, ${count}`);
  lines.push(`reading: ${reading}`);
  for (const message of source.messages) lines.push(formatMessage(bytes, message, source.peerId));
  if (!result.ok) lines.push(`error at offset ${result.error.offset}: ${result.error.reason}`);
  return `${lines.join('\n')}\n`;
}

function formatMessage(bytes: Uint8Array, message: Located, peerId: number | null): string {
  const raw = toHex(bytes.subarray(message.offset, message.offset + message.size));
  // Peer id 0xFF: a client without a slot, so a type-0x03 message is its connect request.
  const head = `  @${String(message.offset).padEnd(4)} ${describeMessage(message, message.size, { peerId })}`;
  if (message.type === 0x01) return `${head}\n         bytes: ${raw}`;
  return `${head}\n         payload: ${message.payload.length ? toHex(message.payload) : '(empty)'}`;
}

function hexByte(value: number): string {
  return value.toString(16).padStart(2, '0').toUpperCase();
}
