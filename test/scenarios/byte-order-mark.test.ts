// Editors on Windows save JSON with a UTF-8 byte-order mark. JSON.parse refuses
// it as an invisible "Unexpected token", so every reader of a scenario file
// skips one leading BOM (and only one: a second is a real stray character).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/model/scenario/index.js';
import { cli, withoutPlanCut } from '../support/cli.js';

const BOM = '\uFEFF';
const dir = mkdtempSync(join(tmpdir(), 'bcsim-bom-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withBom(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, BOM + text, 'utf8');
  expect(readFileSync(file).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  return file;
}

describe('a scenario file that starts with a UTF-8 byte-order mark', () => {
  it('parses as if the mark were not there', () => {
    const text = readFileSync('scenarios/lossy-link.json', 'utf8');
    expect(parseScenario(BOM + text, 'lossy-link.json')).toEqual(parseScenario(text, 'lossy-link.json'));
  });

  it('runs from the command line', async () => {
    const file = withBom('bom.json', '{ "name": "bom", "duration": "2s" }\n');
    const r = await cli(['run', file, '--json']);
    expect(withoutPlanCut(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).scenario).toBe('bom');
  });

  it('is found as a scheme scenario when it has a scheme key', async () => {
    const text = readFileSync('scenarios/schemes/rtype-deaths.json', 'utf8').replace('"10m"', '"5s"');
    const file = withBom('scheme-bom.json', text);
    // `run` names a scheme scenario as such (only compare runs one): it was read as JSON with its scheme key.
    const r = await cli(['run', file]);
    expect(r.stderr).toBe(`bcsim: ${file}: a scheme scenario, which only \`bcsim compare ${file}\` runs\n`);
    expect(r.code).toBe(2);
  });

  it('a scheme scenario parses as if the mark were not there', async () => {
    const { parseSchemeScenario } = await import('../../src/rtype/schemes/index.js');
    const text = readFileSync('scenarios/schemes/rtype-deaths.json', 'utf8');
    expect(parseSchemeScenario(BOM + text, 'rtype-deaths.json')).toEqual(
      parseSchemeScenario(text, 'rtype-deaths.json'),
    );
  });

  it('shrink reads it as its base scenario', async () => {
    const { documentOf } = await import('../../src/tools/shrink/case.js');
    const file = withBom('shrink-bom.json', '{ "name": "bom", "duration": "2s" }\n');
    expect(documentOf(file, 'stock', 1, [], dir).name).toBe('bom');
  });

  it('a second mark is still a stray character, named with its place', async () => {
    const file = withBom('two-boms.json', `${BOM}{ "name": "bom" }\n`);
    const r = await cli(['run', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bcsim: ${file}: invalid JSON: unexpected invisible character U+FEFF at line 1, column 1\n`);
  });
});
