// The `bcsim` binary as npm installs it: the file package.json's "bin" names, run by the
// node its shebang asks for, prints the CLI's output and exit codes.
// Runs the built CLI (dist/), as `npm test` builds it first.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: { bcsim: string };
  scripts: { start: string };
};
const BIN = join(ROOT, PACKAGE.bin.bcsim);

/** The node flags of the bin's `#!/usr/bin/env -S node …` line, as a shell would pass them. */
function shebangFlags(): string[] {
  const line = /^#!\/usr\/bin\/env -S node((?: \S+)*)$/.exec(readFileSync(BIN, 'utf8').split('\n', 1)[0]);
  expect(line).not.toBeNull();
  return (line?.[1] ?? '').split(' ').filter((flag) => flag !== '');
}

function bcsim(args: string[]) {
  const r = spawnSync(process.execPath, [...shebangFlags(), BIN, ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the bin', () => {
  it('is the bundle npm start runs, executable, with the heap cap in its shebang', () => {
    expect(PACKAGE.bin.bcsim).toBe('dist/cli/main.js');
    expect(statSync(BIN).mode & 0o111).toBe(0o111);
    expect(PACKAGE.scripts.start).toContain(`node --max-old-space-size=896 ${PACKAGE.bin.bcsim} `);
    expect(shebangFlags()).toEqual(['--max-old-space-size=896']);
  });

  it('runs a command, prints --help, and refuses a bad file in one line with exit 2', () => {
    const run = bcsim(['run', 'lossy-link', '--duration', '1s', '--json']);
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as { scenario: string }).scenario).toBe('lossy-link');
    const help = bcsim(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: bcsim');
    expect(bcsim(['run', 'test/scenarios/malformed/loss-high.json'])).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'bcsim: test/scenarios/malformed/loss-high.json: link.clientToServer.loss: expected a number between 0 and 1, got "high"\n',
    });
  });
});
