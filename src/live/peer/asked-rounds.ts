// A live client answers the checksum round its server really asked, from the
// manifest (docs/sources.md 31), whatever order the script's manifest lists: it
// keeps each server's requests, oldest first, until its answer goes.
import { TYPE_GAME } from '../../core/codec/index.js';
import { Opcode, checksumAnswer, parseChecksumRequest } from '../../model/traffic/index.js';
import type { ChecksumManifest, ChecksumRequest } from '../../model/traffic/index.js';
import { MAX_ROUNDS_ASKED } from './checksum-check.js';

export class AskedRounds {
  private readonly asked = new Map<number, ChecksumRequest[]>();

  constructor(private readonly manifest: ChecksumManifest) {}

  /** Client `client`'s server delivered this message: a checksum request is kept (bounded). */
  delivered(client: number, type: number, payload: Uint8Array): void {
    if (type !== TYPE_GAME || payload[0] !== Opcode.ChecksumRequest) return;
    const parsed = parseChecksumRequest(payload);
    if (!parsed.ok) return;
    const list = this.asked.get(client) ?? [];
    if (list.length >= MAX_ROUNDS_ASKED) list.shift();
    list.push(parsed.value);
    this.asked.set(client, list);
  }

  /** The message client `client` sends: a checksum answer becomes the answer to its oldest request. */
  answer(client: number, type: number, payload: Uint8Array): Uint8Array {
    if (type !== TYPE_GAME || payload[0] !== Opcode.ChecksumResponse) return payload;
    const request = this.asked.get(client)?.shift();
    return request === undefined ? payload : checksumAnswer(this.manifest, request);
  }
}
