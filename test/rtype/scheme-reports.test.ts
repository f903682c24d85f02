// The committed reports of the scheme scenarios regenerate byte
// for byte, as the BC built-ins' do (test/report/committed.test.ts). The test writes
// into a temporary folder, so it can never re-bless reports/.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEME_REPORT_FILES } from '../../src/analysis/report/index.js';
import { listSchemeBuiltins } from '../../src/rtype/schemes/index.js';
import { cli } from '../support/cli.js';

describe('the committed scheme reports', () => {
  for (const { name } of listSchemeBuiltins()) {
    it(`${name}: regenerating it gives byte-identical files`, { timeout: 120_000 }, async () => {
      const out = join(mkdtempSync(join(tmpdir(), `bcsim-committed-${name}-`)), name);
      const r = await cli(['compare', name, '--out-dir', out]);
      expect(r.code).toBe(0);
      for (const file of SCHEME_REPORT_FILES) {
        const same = readFileSync(join(out, file)).equals(readFileSync(join('reports', name, file)));
        expect(
          same,
          `reports/${name}/${file} differs: regenerate with \`bcsim compare ${name} --out reports/${name}\``,
        ).toBe(true);
      }
    });
  }
});

describe('--help of the new and changed commands', () => {
  it('compare, reproduce and scenarios name the scheme scenarios, with examples and exit codes', async () => {
    const compare = await cli(['compare', '--help']);
    expect(compare.code).toBe(0);
    for (const text of ['rtype-deaths', 'schemes-side-by-side', 'bcsim compare rtype-deaths', 'Exit codes: 0 written'])
      expect(compare.stdout).toContain(text);
    const reproduce = await cli(['reproduce', '--help']);
    for (const text of [
      'fragment-ack, ack-outbox or rtype',
      'bcsim reproduce rtype --loss 0.1',
      'Exit 1 if implemented',
    ])
      expect(reproduce.stdout).toContain(text);
    const scenarios = await cli(['scenarios', '--help']);
    for (const text of ['rtype-deaths', 'Exit code 0', 'bcsim scenarios --json'])
      expect(scenarios.stdout).toContain(text);
  });
});
