// `bcsim analyze` lists the checksum answers a client sent, fragments put back
// together, each once however often it was re-sent, with their hashes named.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeCapture } from '../../src/analysis/capture/analyze-capture.js';
import type { CaptureAnalysis } from '../../src/analysis/capture/analyze-capture.js';
import { renderCaptureAnalysis } from '../../src/analysis/capture/analyze-report.js';
import { terminalStyle } from '../../src/core/output/style.js';
import { checksumResponsePayload } from '../../src/model/traffic/checksum.js';
import { DEFAULT_MANIFEST, findRound } from '../../src/model/traffic/manifest.js';
import type { ManifestRound } from '../../src/model/traffic/manifest.js';
import {
  ack,
  CONNECT_PACKET,
  fragment,
  fromClient,
  fromServer,
  pcap,
  reliable,
  udpPackets,
} from '../support/pcap-build.js';
import type { WirePacket } from '../support/pcap-build.js';

const dir = mkdtempSync(join(tmpdir(), 'bcsim-answers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const C = fromClient;
const SV = fromServer;
const CONNECT = CONNECT_PACKET;

const answerBytes = (round: number) =>
  Array.from(checksumResponsePayload(DEFAULT_MANIFEST, findRound(DEFAULT_MANIFEST, round) as ManifestRound));

function analyze(traffic: WirePacket[]): CaptureAnalysis {
  const path = join(dir, `f${n++}.pcap`);
  writeFileSync(path, pcap(udpPackets(traffic)));
  const result = analyzeCapture(path);
  if (!result.ok) throw new Error(result.error.reason);
  return result.analysis;
}

describe("the client's checksum answers", () => {
  const round2 = answerBytes(2);
  const piece = (i: number) => round2.slice(i * 405, (i + 1) * 405);
  const a = analyze([
    CONNECT,
    C(100_000, reliable(1, answerBytes(0))),
    SV(110_000, ack(1), reliable(1, [0x21, 0, 1, 2, 3])), // a server's 0x21 is no answer of the client's
    C(2_100_000, reliable(1, answerBytes(0))), // re-sent: listed once
    C(2_200_000, fragment(2, 0, 3, piece(0))),
    C(2_200_100, fragment(2, 2, 3, piece(2))), // fragment 1 lost
    C(4_199_900, fragment(2, 0, 3, piece(0))),
    C(4_200_000, fragment(2, 1, 3, piece(1))),
    C(4_200_100, fragment(2, 2, 3, piece(2))),
    C(4_300_000, reliable(3, [0x21, 3, 1, 2])), // cut short: it does not parse
  ]);
  const answers = a.connections[0].checksumAnswers;

  it('each once, a fragmented one when its last missing piece came, a broken one with the reason', () => {
    expect(answers.notKept).toBe(0);
    expect(answers.answers.map((x) => [x.atS, x.seq, x.fragments, x.hashes?.round ?? null, x.error])).toEqual([
      [0.1, 1, 1, 0, null],
      [4.2, 2, 3, 2, null],
      [4.3, 3, 1, null, 'offset 2: the directory hash needs 4 bytes, 2 remain'],
    ]);
    expect(answers.answers[0].hashes).toEqual({
      round: 0,
      refHash: '0x7E0CE243',
      dirHash: '0x4DAFCB2F',
      files: [{ nameHash: '0x373EB677', contentHash: '0xF8A0A768' }],
      subdirs: [],
      fileCount: 1,
      subdirCount: 0,
      filesNotListed: 0,
    });
    // Round 2's 123 files: the figures list 256 at most, so all of them.
    expect(answers.answers[1].hashes).toMatchObject({ fileCount: 123, subdirCount: 1, filesNotListed: 0 });
    expect(answers.answers[1].hashes?.subdirs[0].files).toHaveLength(60);
  });

  it('the table lists them, a few files each', () => {
    const text = renderCaptureAnalysis({ ...a, source: { ...a.source, file: 'x.pcap' } }, terminalStyle(false, {}));
    const from = text.indexOf('checksum answers the client sent');
    expect(from).toBeGreaterThan(0);
    const lines = text.slice(from).split('\n');
    expect(lines.slice(0, 4)).toEqual([
      "checksum answers the client sent (hashes to hold against the server's manifest):",
      '  0.100 s, seq 1: round 0: ref 0x7E0CE243, dir 0x4DAFCB2F, 1 file',
      '    file name 0x373EB677 content 0xF8A0A768',
      expect.stringMatching(
        /^ {2}4\.200 s, seq 2 \(3 fragments\): round 2: dir 0x[0-9A-F]{8}, 123 files, 1 subdirectory$/,
      ),
    ]);
    expect(lines.slice(4, 12).every((l) => /^ {4}file name 0x[0-9A-F]{8} content 0x[0-9A-F]{8}$/.test(l))).toBe(true);
    expect(lines[12]).toBe('    … 115 more files and 1 more subdirectory');
    expect(lines[13]).toBe('  4.300 s, seq 3: does not parse at offset 2: the directory hash needs 4 bytes, 2 remain');
  });

  it('past 16 answers, the rest are counted', () => {
    const many = Array.from({ length: 20 }, (_, i) => C(100_000 * (i + 1), reliable(i + 1, answerBytes(3))));
    const figures = analyze([CONNECT, ...many]).connections[0].checksumAnswers;
    expect(figures.answers).toHaveLength(16);
    expect(figures.notKept).toBe(4);
  });
});
