// Every committed report regenerates byte for byte. The test
// writes into a temporary folder and compares, so it can never re-bless reports/.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinNames } from '../../src/model/scenario/load.js';
import { listSchemeBuiltins } from '../../src/rtype/schemes/index.js';
import { REPORT_FILES } from '../../src/analysis/report/write.js';
import { cli } from '../support/cli.js';

describe('the committed reports', () => {
  it('exist for every built-in scenario, and only for them', () => {
    const committed = readdirSync('reports', { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'experiments')
      .map((d) => d.name)
      .sort();
    // The scheme scenarios' reports regenerate in test/rtype/scheme-reports.test.ts.
    expect(committed).toEqual([...builtinNames(), ...listSchemeBuiltins().map((b) => b.name)].sort());
  });

  for (const name of builtinNames()) {
    it(`${name}: regenerating it gives byte-identical files`, async () => {
      const out = mkdtempSync(join(tmpdir(), `bcsim-committed-${name}-`));
      const r = await cli(['compare', name, '--out-dir', out]);
      expect(r.code).toBe(0);
      for (const file of REPORT_FILES) {
        const fresh = readFileSync(join(out, file));
        const committed = readFileSync(join('reports', name, file));
        expect(
          fresh.equals(committed),
          `reports/${name}/${file} differs: regenerate with \`bcsim compare ${name} --out reports/${name}\``,
        ).toBe(true);
      }
    });
  }
});
