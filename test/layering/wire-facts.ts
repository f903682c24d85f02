// One vocabulary for wire facts: outside src/core/codec, nothing
// does bit arithmetic on wire fields or writes the wire's sizes as numbers; it
// asks the codec (ackFlagsLowType, flagsLenSize, packKeyOf, DATAGRAM_ROOM_BYTES,
// seqBefore, ...). The check reads code only: comments, strings and template
// text are blanked first, so prose may still say "the 510 bytes after the header".
import ts from 'typescript';
import type { SourceText } from './layers.js';

export interface WirePattern {
  readonly name: string;
  readonly pattern: RegExp;
  /** The codec helper to use instead. */
  readonly instead: string;
}

export const WIRE_PATTERNS: readonly WirePattern[] = [
  {
    name: 'a flags byte or flags_len word masked by hand',
    pattern: /\b\w*[fF]lags(Len)?\s*&(?!&)/g,
    instead: 'ackFlagsFragment/ackFlagsLowType/ackFlagsOther, flagsLenReliable/Ordered/Fragment/Size',
  },
  {
    name: 'an ACK flag bit masked by hand',
    pattern: /&\s*~?\s*0x0*[123]\b/g,
    instead: 'ackFlagsFragment/ackFlagsLowType/ackFlagsOther',
  },
  {
    name: 'a wire flag constant used as a mask',
    pattern: /&\s*~?\s*\(?\s*(ACK_FLAG_\w+|FLAG_\w+|GAME_LENGTH_MASK|GENERIC_LENGTH_MASK)\b/g,
    instead: 'the codec flag helpers',
  },
  {
    name: 'a flags_len bit or length mask by hand',
    pattern: /&\s*0x(8000|4000|2000|1fff|3fff)\b/gi,
    instead: 'flagsLenReliable/Ordered/Fragment/Size',
  },
  {
    name: 'the datagram room or a size derived from it as a number',
    pattern: /\b(510|503|505)\b/g,
    instead: 'DATAGRAM_ROOM_BYTES, MAX_FRAGMENT_CHUNK_BYTES, MAX_UNFRAGMENTED_PAYLOAD_BYTES',
  },
  {
    name: 'an ACK size chosen by hand',
    pattern: /\?\s*[45]\s*:\s*[45]\b/g,
    instead: 'ackBytes(fragment), ackBytesOfFlags(flags)',
  },
  {
    name: 'a header size summed by hand',
    pattern: /\b3\s*\+\s*\(\s*[\w.]+\s*\?\s*2\s*:\s*0\s*\)/g,
    instead: 'dataHeaderBytes, afterSeqOffset',
  },
  {
    name: 'a message key packed by hand',
    pattern: /\?\s*(1\s*<<\s*1[678]|0x[12]000000)\b|<<\s*18\b/g,
    instead: 'packKeyOf, packKey, packAckKey, packDataKey',
  },
  {
    name: 'a u16 field read by hand',
    pattern: /\]\s*\|\s*\(\s*[\w.]+\[[^\]]+\]\s*<<\s*8\s*\)/g,
    instead: 'u16At, ackSeqAt, dataSeqAt, flagsLenAt',
  },
  { name: 'serial (seq) arithmetic by hand', pattern: /<\s*0x8000\b/g, instead: 'seqBefore, seqDistance, seqNext' },
];

/**
 * Files that may match, with why: they read other protocols' headers, not BC's.
 * Keyed by path, then by pattern name.
 */
const WIRE_EXEMPT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'src/core/pcap/udp.ts': {
    'a flags_len bit or length mask by hand': "the IPv4 header's flags and fragment offset",
    'a u16 field read by hand': 'a pcap record header, little-endian u32',
  },
};

export interface WireFinding {
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
  readonly text: string;
}

const LITERALS = new Set<ts.SyntaxKind>([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
]);

/**
 * The text with comments, strings, template text and regular expressions blanked
 * (line breaks kept, so positions hold). The syntax tree says where the literals
 * are (a scanner alone cannot tell a regular expression from a division); a
 * scanner walks the tokens, skips each literal whole and blanks every comment.
 */
export function codeOnly(path: string, text: string): string {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const literalEnd = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    if (LITERALS.has(node.kind)) literalEnd.set(node.getStart(source), node.end);
    ts.forEachChild(node, visit);
  };
  visit(source);
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, false, ts.LanguageVariant.Standard, text);
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const start = scanner.getTokenStart();
    const end = literalEnd.get(start);
    if (end !== undefined) {
      blank(start, end);
      scanner.resetTokenState(end);
    } else if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      blank(start, scanner.getTokenEnd());
    }
  }
  return out.join('');
}

/** Wire bit arithmetic and wire sizes written by hand in files outside src/core/codec; empty when there are none. */
export function checkWireFacts(files: readonly SourceText[]): WireFinding[] {
  const findings: WireFinding[] = [];
  for (const { path, text } of files) {
    if (!path.startsWith('src/') || path.startsWith('src/core/codec/')) continue;
    const code = codeOnly(path, text);
    const lines = text.split('\n');
    for (const { name, pattern } of WIRE_PATTERNS) {
      if (WIRE_EXEMPT[path]?.[name] !== undefined) continue;
      for (const match of code.matchAll(pattern)) {
        const line = code.slice(0, match.index).split('\n').length;
        findings.push({ file: path, line, pattern: name, text: lines[line - 1].trim() });
      }
    }
  }
  return findings;
}
