// One rule for time in the simulation core: in src/core/engine, src/model/link and
// src/model/transport a quantity named in µs or ms (nowUs, lastSendUs, periodMs,
// RETRY_US, us) is typed with the brand of its unit (Micros, Millis, or the
// input forms MicrosIn/MillisIn for values read from a scenario), never as a
// plain `number`. This test parses those folders and fails on a field,
// parameter, variable or return type that breaks the rule, naming file:line.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FOLDERS = ['src/core/engine', 'src/model/link', 'src/model/transport'];

interface SourceText {
  readonly path: string;
  readonly text: string;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const SRC: SourceText[] = FOLDERS.flatMap((folder) => files(join(ROOT, folder))).map((file) => ({
  path: relative(ROOT, file).split(sep).join('/'),
  text: readFileSync(file, 'utf8'),
}));

/**
 * A name that states a time unit: `us`, `ms`, `…Us`, `…Ms`, `…_US`, `…_MS`. A
 * rate or factor (`perSecondOverMs`, `US_PER_MS`) divides by the unit: not a time.
 */
function namesATime(name: string): boolean {
  if (name === 'us' || name === 'ms') return true;
  if (/[a-z0-9](Us|Ms)$/.test(name)) return !/(Per|Over)(Us|Ms)$/.test(name);
  if (/[A-Z0-9]_(US|MS)$/.test(name)) return !/_PER_(US|MS)$/.test(name);
  return false;
}

/** Where a type node says plain `number` for the quantity: number, number | null, number[], () => number. */
function plainNumber(type: ts.TypeNode): boolean {
  if (type.kind === ts.SyntaxKind.NumberKeyword) return true;
  if (ts.isParenthesizedTypeNode(type)) return plainNumber(type.type);
  if (ts.isUnionTypeNode(type)) return type.types.some(plainNumber);
  if (ts.isArrayTypeNode(type)) return plainNumber(type.elementType);
  if (ts.isTypeOperatorNode(type)) return plainNumber(type.type);
  if (ts.isFunctionTypeNode(type)) return plainNumber(type.type);
  if (
    ts.isTypeReferenceNode(type) &&
    ts.isIdentifier(type.typeName) &&
    ['Array', 'ReadonlyArray'].includes(type.typeName.text)
  )
    return (type.typeArguments ?? []).some(plainNumber);
  return false;
}

/** A bare numeric literal (`0`, `-1`, `2_000`): what an unannotated declaration is inferred from as `number`. */
function numericLiteral(e: ts.Expression | undefined): boolean {
  if (e === undefined) return false;
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.MinusToken) return numericLiteral(e.operand);
  return ts.isNumericLiteral(e);
}

interface UnitFinding {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly message: string;
}

type Named = ts.Node & { readonly name?: ts.Node; readonly type?: ts.TypeNode };

/** The name a function's result is known by: its own, or the variable or property it is assigned to. */
function functionName(node: ts.SignatureDeclaration): string | null {
  const own = (node as Named).name;
  if (own !== undefined && ts.isIdentifier(own)) return own.text;
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent)) &&
    ts.isIdentifier(parent.name)
  )
    return parent.name.text;
  return null;
}

/** Every time quantity declared as a plain number in one file. */
function untypedTimes(path: string, text: string): UnitFinding[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found: UnitFinding[] = [];
  const report = (node: ts.Node, name: string, what: string): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({
      file: path,
      line,
      name,
      message: `${path}:${line}: ${what} \`${name}\` is a plain number: type it Micros or Millis (src/core/engine/time.ts)`,
    });
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertySignature(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isParameter(node) ||
      ts.isVariableDeclaration(node)
    ) {
      const name = node.name;
      if (ts.isIdentifier(name) && namesATime(name.text)) {
        const type = node.type;
        const initializer = ts.isPropertySignature(node) ? undefined : node.initializer;
        if (type !== undefined ? plainNumber(type) : numericLiteral(initializer))
          report(node, name.text, ts.isParameter(node) ? 'parameter' : 'declaration');
      }
    }
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isMethodSignature(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)
    ) {
      const name = functionName(node);
      if (name !== null && namesATime(name) && node.type !== undefined && plainNumber(node.type))
        report(node, name, 'the result of');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function checkUnits(sources: readonly SourceText[]): UnitFinding[] {
  return sources.flatMap((f) => untypedTimes(f.path, f.text));
}

describe('time units in src/core/engine, src/model/link and src/model/transport', () => {
  it('every µs or ms quantity is typed with its unit, never a plain number', () => {
    for (const folder of FOLDERS) expect(SRC.filter((f) => f.path.startsWith(`${folder}/`)).length).toBeGreaterThan(5);
    expect(checkUnits(SRC).map((f) => f.message)).toEqual([]);
  });
});

describe('the unit check can fail (planted in memory, never on disk)', () => {
  const plant = (text: string) => checkUnits([{ path: 'src/model/transport/planted.ts', text }]);

  it('reports a planted field, naming file and line', () => {
    expect(plant('export interface Entry {\n  seq: number;\n  lastSendUs: number;\n}\n').map((f) => f.message)).toEqual(
      [
        'src/model/transport/planted.ts:3: declaration `lastSendUs` is a plain number: type it Micros or Millis (src/core/engine/time.ts)',
      ],
    );
  });

  it('reports fields, parameters, locals, results and callbacks in every spelling', () => {
    const text = [
      'class A { private readonly resendUs: number; }', // 1
      'function f(nowUs: number, count: number) {}', // 2
      'let periodMs: number | null = null;', // 3
      'function deadlineUs(): number { return 0; }', // 4
      'class B { get ageMs(): number { return 0; } }', // 5
      'class C { private lastUs = 0; }', // 6
      'const RETRY_US = -1;', // 7
      'type T = { readonly jitterMs: (() => number) | null; samplesUs: readonly number[] };', // 8
      'const timeoutMs = (x: number): number => x;', // 9
      'function g(us: number) {}', // 10
    ].join('\n');
    expect(plant(text).map((f) => `${f.line} ${f.name}`)).toEqual([
      '1 resendUs',
      '2 nowUs',
      '3 periodMs',
      '4 deadlineUs',
      '5 ageMs',
      '6 lastUs',
      '7 RETRY_US',
      '8 jitterMs',
      '8 samplesUs',
      '9 timeoutMs',
      '10 us',
    ]);
  });

  it('accepts branded times, rates, factors, counts and comments', () => {
    const text = [
      '// lastSendUs: number in a comment',
      "const s = 'nowUs: number';",
      'class A { private lastSendUs: Micros = ZERO_US; private readonly periodMs: MillisIn; }',
      'function f(nowUs: Micros, atUs: MicrosIn | null): Micros { return nowUs; }',
      'function perSecondOverMs(count: number, periodMs: MillisIn): number { return 0; }',
      'const US_PER_MS = 1_000;',
      'const items: number = 3;',
      'let nowUs = micros(0);',
    ].join('\n');
    expect(plant(text)).toEqual([]);
  });
});
