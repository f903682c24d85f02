// The live wire log holds a counted budget of bytes: the first records of a
// session until their estimated memory reaches it, the later ones counted; the
// counterpart's garbage takes an eighth of it at most. --wire-log-mb sets it.
import { describe, expect, it } from 'vitest';
import { TYPE_ACK, encodeDatagram } from '../../src/core/codec/index.js';
import { BYTES_PER_MIB, MAX_WIRE_LOG_MIB, WireLog } from '../../src/live/wire-log.js';
import type { WireRecord } from '../../src/live/wire-log.js';
import { wireRecordBytes } from '../../src/live/wire-log.js';
import { cli } from '../support/cli.js';

function readable(timeUs: number): WireRecord {
  const encoded = encodeDatagram({
    peerId: 2,
    messages: [{ type: TYPE_ACK, seq: timeUs & 0xffff, flags: 0, fragIndex: null }],
  });
  if (!encoded.ok) throw new Error('encode');
  return { timeUs, from: 'remote', connection: 1, bytes: encoded.bytes };
}

/** Decrypted bytes that do not decode: a header, then an unknown message type. */
function garbage(timeUs: number): WireRecord {
  return { timeUs, from: 'remote', connection: 1, bytes: Uint8Array.from([0x01, 0x4d, 0x93, 0xe9, 0x00, 0x00]) };
}

describe('WireLog', () => {
  it('keeps records in order until the budget is spent, then counts the rest and when the log stopped being complete', () => {
    const cost = wireRecordBytes(readable(0));
    const log = new WireLog(cost * 10);
    for (let t = 0; t < 25; t++) log.add(readable(t));
    expect(log.records.map((r) => r.timeUs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(log.bytes).toBe(cost * 10);
    expect(log.dropped).toBe(15);
    expect(log.droppedBytes).toBe(cost * 15);
    expect(log.droppedUnreadable).toBe(0);
    expect(log.completeUntilUs).toBe(10);
  });

  it("gives the counterpart's undecodable datagrams an eighth of the budget, so a flood of them leaves room for the session", () => {
    const cost = wireRecordBytes(readable(0));
    const log = new WireLog(cost * 80);
    for (let t = 0; t < 1000; t++) log.add(garbage(t));
    const kept = log.records.length;
    expect(kept).toBeGreaterThan(0);
    expect(log.unreadableBytes).toBeLessThanOrEqual(log.budgetBytes / 8);
    expect(log.droppedUnreadable).toBe(1000 - kept);
    // The log of readable records is still complete: nothing readable was dropped.
    expect(log.completeUntilUs).toBeNull();
    for (let t = 1000; t < 1060; t++) log.add(readable(t));
    expect(log.records.length - kept).toBe(60);
    expect(log.completeUntilUs).toBeNull();
    // Our own datagrams are never counted as the counterpart's garbage.
    const ours = new WireLog(cost * 80);
    for (let t = 0; t < 50; t++) ours.add({ ...garbage(t), from: 'local' });
    expect(ours.records).toHaveLength(50);
  });

  it('counts a wire copy and deviations in the estimate, and refuses a budget that is not a positive whole number', () => {
    const plain = readable(0);
    const withWire = { ...plain, bytes: plain.bytes.slice(), wire: plain.bytes };
    expect(wireRecordBytes(withWire) - wireRecordBytes(plain)).toBeGreaterThan(plain.bytes.length);
    const deviation = { offset: 3, code: 'ack-flag-bits', note: 'deviation' } as const;
    expect(wireRecordBytes({ ...plain, deviations: [deviation] })).toBeGreaterThan(wireRecordBytes(plain));
    expect(() => new WireLog(0)).toThrow(/positive whole number/);
    expect(new WireLog().budgetBytes).toBe(64 * BYTES_PER_MIB);
  });
});

describe('--wire-log-mb', () => {
  it.each(['0', '-1', '1.5', '0x10', `${MAX_WIRE_LOG_MIB + 1}`, ''])(
    'refuses %j in one line, exit 2',
    async (value) => {
      const r = await cli(['peer', 'client', '--connect', '127.0.0.1:22101', '--wire-log-mb', value]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `bcsim: --wire-log-mb: expected a whole number of MiB 1..${MAX_WIRE_LOG_MIB}, got "${value}"`,
      ]);
    },
  );
});
