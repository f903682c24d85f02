// `bcsim decode <hex…> [--json]`: decode one datagram and annotate every field.
import { decodeDatagram, decodeResultToJson, describeMessage, parseHex, peerLabel, toHex } from '../../codec/index.js';
import type { Located } from '../../codec/index.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from '../io.js';
import type { CliIO } from '../io.js';

export interface DecodeOptions {
  json?: boolean;
}

export function decodeCommand(hexParts: string[], options: DecodeOptions, io: CliIO): number {
  const text = hexParts.join(' ');
  const parsed = parseHex(text);
  if (!parsed.ok) throw new UsageError(`decode: input is not hex at character ${parsed.offset}: ${parsed.reason}`);
  const bytes = parsed.bytes;
  const result = decodeDatagram(bytes);
  if (options.json) {
    io.stdout(`${JSON.stringify(decodeResultToJson(bytes, result))}\n`);
  } else {
    io.stdout(formatListing(bytes, result));
  }
  return result.ok ? EXIT_OK : EXIT_FAILED;
}

function formatListing(bytes: Uint8Array, result: ReturnType<typeof decodeDatagram>): string {
  const source = result.ok ? result.datagram : result.partial;
  const lines: string[] = [];
  const peer = source.peerId === null ? 'peer ?' : `peer 0x${hexByte(source.peerId)} (${peerLabel(source.peerId)})`;
  const count = source.messageCount === null ? '? messages' : `${source.messageCount} message${source.messageCount === 1 ? '' : 's'}`;
  lines.push(`datagram: ${bytes.length} bytes, ${peer}, ${count}`);
  for (const message of source.messages) lines.push(formatMessage(bytes, message));
  if (!result.ok) lines.push(`error at offset ${result.error.offset}: ${result.error.reason}`);
  return `${lines.join('\n')}\n`;
}

function formatMessage(bytes: Uint8Array, message: Located): string {
  const raw = toHex(bytes.subarray(message.offset, message.offset + message.size));
  const head = `  @${String(message.offset).padEnd(4)} ${describeMessage(message, message.size)}`;
  if (message.type === 0x01) return `${head}\n         bytes: ${raw}`;
  return `${head}\n         payload: ${message.payload.length ? toHex(message.payload) : '(empty)'}`;
}

function hexByte(value: number): string {
  return value.toString(16).padStart(2, '0').toUpperCase();
}
