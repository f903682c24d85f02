// One vocabulary for wire facts. Outside src/core/codec nothing
// masks a flags byte, reads a u16 by hand, packs a message key or writes the
// datagram's room as 510: it asks the codec. The check can fail: planted files
// (in memory, never on disk) show each pattern is caught, and that prose in
// comments and strings is not.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceText } from './layers.js';
import { WIRE_PATTERNS, checkWireFacts, codeOnly } from './wire-facts.js';

const ROOT = join(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const SRC: SourceText[] = files(join(ROOT, 'src')).map((file) => ({
  path: relative(ROOT, file).split(sep).join('/'),
  text: readFileSync(file, 'utf8'),
}));
const show = (findings: ReturnType<typeof checkWireFacts>) =>
  findings.map((f) => `${f.file}:${f.line} ${f.pattern}: ${f.text}`);

describe('wire facts outside the codec', () => {
  it('no bit arithmetic on wire fields and no hand-written wire sizes outside src/core/codec', () => {
    expect(SRC.length).toBeGreaterThan(100);
    expect(show(checkWireFacts(SRC))).toEqual([]);
  }, 60_000); // parses every file of src/: a few seconds on a busy machine

  it('the codec itself may do it (it is where the facts live)', () => {
    const codec = SRC.filter((f) => f.path.startsWith('src/core/codec/'));
    expect(codec.some((f) => f.text.includes('flags & ACK_FLAG_FRAGMENT'))).toBe(true);
    expect(checkWireFacts(codec)).toEqual([]);
  });
});

describe('the wire-facts check can fail (planted in memory)', () => {
  const planted = (text: string): SourceText[] => [{ path: 'src/model/transport/planted.ts', text }];
  const caught = (text: string) => checkWireFacts(planted(text)).map((f) => f.pattern);

  it.each([
    ['const low = (message.flags & 2) !== 0;', 'a flags byte or flags_len word masked by hand'],
    ['const fragment = (bytes[pos + 3] & 0x01) !== 0;', 'an ACK flag bit masked by hand'],
    ['const low = (f & ACK_FLAG_LOW_TYPE) !== 0;', 'a wire flag constant used as a mask'],
    ['const reliable = (word & 0x8000) !== 0;', 'a flags_len bit or length mask by hand'],
    ['if (payload.length + 5 > 510) refuse();', 'the datagram room or a size derived from it as a number'],
    ['const max = 503;', 'the datagram room or a size derived from it as a number'],
    ['const size = fragment ? 5 : 4;', 'an ACK size chosen by hand'],
    ['const at = pos + 3 + (reliable ? 2 : 0);', 'a header size summed by hand'],
    ['const key = seq | (low ? 1 << 16 : 0);', 'a message key packed by hand'],
    ['const key = (low ? 0x2000000 : 0) + seq;', 'a message key packed by hand'],
    ['const seq = bytes[pos + 1] | (bytes[pos + 2] << 8);', 'a u16 field read by hand'],
    ['const ahead = d !== 0 && d < 0x8000;', 'serial (seq) arithmetic by hand'],
  ])('catches %s', (line, pattern) => {
    expect(caught(line)).toContain(pattern);
  });

  it('reports the file and line of a planted line', () => {
    const [finding] = checkWireFacts(planted('// first\nconst ok = 1;\nconst low = (ack.flags & 0x02) !== 0;\n'));
    expect(finding).toMatchObject({
      file: 'src/model/transport/planted.ts',
      line: 3,
      text: 'const low = (ack.flags & 0x02) !== 0;',
    });
  });

  it('ignores comments, strings, templates and regular expressions', () => {
    const prose = [
      '// the 510 bytes after the datagram header; (flags & 0x02) is bit 1',
      '/** A fragment ACK is 5 bytes: fragment ? 5 : 4 */',
      "const help = 'exceed 510 B per update (flags & 2)';",
      'const text = `a peer can send ${room} B, not 510 (flags & 1)`;',
      'const re = /flags & 0x01/;',
      'if (x) {',
      '  run();',
      '  // a comment alone before a closing brace: (flags & 0x02), 510',
      '}',
      'const y = { a: 1, /* (flags & 1) */ };',
    ].join('\n');
    expect(codeOnly('x.ts', prose)).not.toMatch(/510|flags/);
    expect(caught(prose)).toEqual([]);
  });

  it('each pattern has a codec helper to point at', () => {
    for (const p of WIRE_PATTERNS) expect(p.instead.length).toBeGreaterThan(0);
  });

  it('a planted line in src/core/codec is not a finding', () => {
    expect(checkWireFacts([{ path: 'src/core/codec/planted.ts', text: 'const low = (flags & 0x02) !== 0;' }])).toEqual(
      [],
    );
  });
});
