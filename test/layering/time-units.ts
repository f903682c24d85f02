// Typed time: every conversion between µs, ms and s lives in
// src/core/engine/time.ts. This checker finds a hand-written one anywhere else in
// src/: a `*` or `/` (or `*=`, `/=`) with 1000, 1e3, 1e6, 1e-3 or 1e-6 (in any
// spelling: 1_000, 1_000_000, 1000000, 1000n) or one of time.ts's factors
// (US_PER_MS, US_PER_SECOND, MS_PER_SECOND) as an operand. It parses the source
// (comments and strings never match) and works on an in-memory list of
// (path, text), so the test can plant a violation without writing a file.
import ts from 'typescript';
import type { SourceText } from './layers.js';

/** The one file allowed to convert. */
export const TIME_MODULE = 'src/core/engine/time.ts';

/** Operand values that make a product or quotient a unit conversion. */
const FACTORS = new Set([1e3, 1e6, 1e-3, 1e-6]);
/** time.ts's named factors: using them elsewhere is a conversion by hand too. */
const FACTOR_NAMES = new Set(['US_PER_MS', 'US_PER_SECOND', 'MS_PER_SECOND']);

const OPERATORS = new Set([
  ts.SyntaxKind.AsteriskToken,
  ts.SyntaxKind.SlashToken,
  ts.SyntaxKind.AsteriskEqualsToken,
  ts.SyntaxKind.SlashEqualsToken,
]);

/**
 * Products and quotients by 1000 or 1e6 that are not time, one line each with why.
 * Empty on purpose: a non-time factor gets a named constant in its own file
 * (THOUSANDTHS for rounding to three decimals, SALT_STRIDE for payload salts),
 * which this check does not flag. Add an entry only with a reason.
 */
export const TIME_UNIT_EXCEPTIONS: ReadonlyArray<{
  readonly file: string;
  readonly expression: string;
  readonly reason: string;
}> = [];

export interface TimeUnitFinding {
  readonly file: string;
  readonly line: number;
  readonly expression: string;
  readonly message: string;
}

function factorOf(node: ts.Expression): string | null {
  let e = node;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken) e = e.operand;
  if (ts.isNumericLiteral(e)) return FACTORS.has(Number(e.text.replace(/_/g, ''))) ? e.getText() : null;
  if (ts.isBigIntLiteral(e))
    return FACTORS.has(Number(e.text.replace(/_/g, '').replace(/n$/, ''))) ? e.getText() : null;
  if (ts.isIdentifier(e) && FACTOR_NAMES.has(e.text)) return e.text;
  if (ts.isPropertyAccessExpression(e) && FACTOR_NAMES.has(e.name.text)) return e.name.text;
  return null;
}

/** Every hand-written unit conversion in one file. */
export function timeConversions(path: string, text: string): TimeUnitFinding[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: TimeUnitFinding[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && OPERATORS.has(node.operatorToken.kind)) {
      const factor = factorOf(node.left) ?? factorOf(node.right);
      if (factor !== null) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const expression = node.getText(source).replace(/\s+/g, ' ');
        const op = node.operatorToken.getText(source);
        found.push({
          file: path,
          line,
          expression,
          message: `${path}:${line}: \`${expression}\` converts a unit by hand (${op} ${factor}): use a conversion from ${TIME_MODULE} (msToUs, usToSeconds, …), or a named constant if it is not time`,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Hand-written conversions in src/, outside time.ts and the exception list. */
export function checkTimeUnits(files: readonly SourceText[], exceptions = TIME_UNIT_EXCEPTIONS): TimeUnitFinding[] {
  return files
    .filter((f) => f.path.startsWith('src/') && f.path !== TIME_MODULE)
    .flatMap((f) => timeConversions(f.path, f.text))
    .filter((finding) => !exceptions.some((x) => x.file === finding.file && x.expression === finding.expression));
}
