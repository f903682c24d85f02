// A live client's refused checksum answer, read from wire logs built with the real
// codec: the last answer (a fragmented one put back together) and what the server
// did after it. A server that went on, or was silent too briefly, refused nothing.
import { describe, expect, it } from 'vitest';
import { TYPE_BOOT, TYPE_DISCONNECT } from '../../src/core/codec/index.js';
import type { Message } from '../../src/core/codec/index.js';
import { checksumRefusal } from '../../src/live/peer/checksum-refusal.js';
import type { WireRecord } from '../../src/live/wire-log.js';
import { checksumRequestPayload, checksumResponsePayload } from '../../src/model/traffic/checksum.js';
import { DEFAULT_MANIFEST, findRound } from '../../src/model/traffic/manifest.js';
import type { ManifestRound } from '../../src/model/traffic/manifest.js';
import { Opcode } from '../../src/model/traffic/payloads.js';
import { dataMsg, hex } from '../codec/helpers.js';
import { ack, local, remote } from '../support/conformance-logs.js';

const round = (n: number) => findRound(DEFAULT_MANIFEST, n) as ManifestRound;
const request = (seq: number, n: number): Message =>
  dataMsg({ reliable: true, seq, payload: checksumRequestPayload(round(n)) });
const answer = (seq: number, n: number): Message =>
  dataMsg({ reliable: true, seq, payload: checksumResponsePayload(DEFAULT_MANIFEST, round(n)) });
const boot = (seq: number): Message =>
  dataMsg({ type: TYPE_BOOT, reliable: true, ordered: true, seq, payload: Uint8Array.of(2) });

/** Connect, request round 0 (seq 0), our answer (seq 0) at 200 ms. */
const joinToRound0 = (): WireRecord[] => [remote(100, request(0, 0)), local(200, ack(0), answer(0, 0))];

const refusal = (log: WireRecord[], endMs = 10_000, file: string | null = null) =>
  checksumRefusal(log, DEFAULT_MANIFEST, endMs * 1000, file);

const HASHES = '(ref 0x7E0CE243, dir 0x4DAFCB2F, App.pyc name 0x373EB677 content 0xF8A0A768)';
const HINT = 'if it checks file hashes, give it its manifest with --manifest FILE';

describe('a refused checksum answer', () => {
  it('is the captured round-0 answer, byte for byte', () => {
    expect(checksumResponsePayload(DEFAULT_MANIFEST, round(0))).toEqual(
      hex('21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00'),
    );
  });

  it('followed by a Boot: round 0, our hashes, the Boot and when', () => {
    const r = refusal([...joinToRound0(), remote(210, ack(0)), remote(220, boot(1))]);
    expect(r?.sentence).toBe(
      `bcsim peer client: the server refused our round-0 checksum answer ${HASHES}: it Booted us 0.02 s later (a transport Boot, type 0x04, payload 02) — ${HINT}`,
    );
    expect(r).toMatchObject({
      round: 0,
      seq: 0,
      fragments: 1,
      answeredAtS: 0.2,
      action: { kind: 'boot', atS: 0.22, acks: 1, silentS: null },
      hashes: {
        round: 0,
        refHash: '0x7E0CE243',
        dirHash: '0x4DAFCB2F',
        files: [{ nameHash: '0x373EB677', contentHash: '0xF8A0A768' }],
        fileCount: 1,
      },
    });
    expect(r?.action.afterS).toBeCloseTo(0.02, 9);
  });

  it('followed by a game BootPlayer with its reason', () => {
    const kick = dataMsg({ reliable: true, seq: 1, payload: Uint8Array.of(Opcode.BootPlayer, 4) });
    const r = refusal([...joinToRound0(), remote(1200, kick)]);
    expect(r?.action.kind).toBe('boot-player');
    expect(r?.action.detail).toBe('it removed us 1.00 s later (a game BootPlayer, opcode 0x04, reason 4)');
  });

  it('followed by a Disconnect, type 0x05 or, as some reimplementations send it, 0x06', () => {
    const bye = dataMsg({ type: TYPE_DISCONNECT, reliable: true, ordered: true, seq: 1, payload: Uint8Array.of() });
    const plain = refusal([...joinToRound0(), remote(300, bye)]);
    expect(plain?.action.detail).toBe('it disconnected us 0.10 s later (a Disconnect, type 0x05)');
    const alt = { ...remote(300, bye), deviations: [{ offset: 2, code: 'disconnect-type-06' as const, note: '' }] };
    expect(refusal([...joinToRound0(), alt])?.action.detail).toBe(
      'it disconnected us 0.10 s later (a Disconnect, type 0x06)',
    );
  });

  it('followed by nothing but ACKs, 3 s or more: the server went silent', () => {
    const r = refusal([...joinToRound0(), remote(210, ack(0)), remote(2210, ack(0))], 5_000);
    expect(r?.action).toMatchObject({ kind: 'silence', acks: 2, silentS: 4.8, atS: null });
    expect(r?.sentence).toBe(
      `bcsim peer client: the server refused our round-0 checksum answer ${HASHES}: it went silent: nothing but 2 ACKs in the 4.80 s that followed (the last 2.01 s after it) — ${HINT}`,
    );
    expect(refusal(joinToRound0(), 15_000)?.action.detail).toBe(
      'it went silent: not even an ACK of it in the 14.80 s that followed',
    );
  });

  it('a re-send of what the server sent before our answer does not count as going on', () => {
    const r = refusal([...joinToRound0(), remote(1000, request(0, 0)), remote(1010, boot(1))]);
    expect(r?.action.kind).toBe('boot');
  });

  it('names our manifest file when we gave one', () => {
    const r = refusal([...joinToRound0(), remote(215, boot(1))], 10_000, 'vanilla.json');
    expect(r?.sentence).toMatch(/— if it checks file hashes, its manifest differs from vanilla\.json$/);
  });

  it('a fragmented round-2 answer is put back together: its hashes, its first files named from our manifest', () => {
    const payload = checksumResponsePayload(DEFAULT_MANIFEST, round(2));
    const cuts = [0, 405, 810, payload.length];
    const fragment = (i: number): Message =>
      dataMsg({
        reliable: true,
        fragment: true,
        seq: 2,
        fragIndex: i,
        fragCount: i === 0 ? 3 : null,
        payload: payload.subarray(cuts[i], cuts[i + 1]),
      });
    const log = [
      ...joinToRound0(),
      remote(250, request(1, 2)),
      local(300, ack(1), fragment(0)),
      local(301, fragment(1)),
      local(302, fragment(2)),
      remote(320, boot(2)),
    ];
    const r = refusal(log);
    expect(r).toMatchObject({ round: 2, seq: 2, fragments: 3, answeredAtS: 0.302 });
    expect(r?.hashes).toMatchObject({ fileCount: 123, subdirCount: 1, filesNotListed: 123 - 64 });
    const first = round(2).tree.files[0];
    expect(r?.sentence).toContain(
      `round-2 checksum answer (dir 0x${round(2).dirHash.toString(16).toUpperCase()}, ship01.pyc name 0x${first.nameHash.toString(16).toUpperCase().padStart(8, '0')} content `,
    );
    expect(r?.sentence).toContain(', and 120 more files): it Booted us 0.02 s later');
    // Without its last fragment the round-2 answer never went out whole, and after round 0's the server went on.
    expect(refusal(log.filter((_, i) => i !== 5))).toBeNull();
  });
});

describe('no refusal', () => {
  it('when the server went on: its next request', () => {
    expect(refusal([...joinToRound0(), remote(210, ack(0), request(1, 1))])).toBeNull();
  });

  it('when it went on and only then left', () => {
    expect(refusal([...joinToRound0(), remote(210, request(1, 1)), remote(400, boot(2))])).toBeNull();
  });

  it('when it was silent for less than 3 s', () => {
    expect(refusal([...joinToRound0(), remote(210, ack(0))], 3_100)).toBeNull();
    expect(refusal([...joinToRound0(), remote(210, ack(0))], 3_300)).not.toBeNull();
  });

  it('when we never sent a checksum answer', () => {
    expect(refusal([remote(100, request(0, 0)), remote(400, boot(1))])).toBeNull();
  });
});
