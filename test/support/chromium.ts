// Headless Chromium for the HTML reports' tests. Never skipped: .ci/run
// installs Debian's chromium when it is missing, so a test expects CHROMIUM.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Loads a page headless (in a window `width` px wide); returns its DOM and every console line Chromium logged. */
export function renderInChromium(page: string, width = 1400): { dom: string; console: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'bcsim-html-'));
  const file = join(dir, 'page.html');
  writeFileSync(file, page);
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
  ];
  const r = spawnSync(
    CHROMIUM as string,
    [
      ...flags,
      '--disable-sync',
      `--user-data-dir=${join(dir, 'profile')}`,
      `--window-size=${width},1200`,
      '--enable-logging=stderr',
      '--v=0',
      '--dump-dom',
      `file://${file}`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return { dom: r.stdout, console: r.stderr.split('\n').filter((l) => l.includes(':CONSOLE')) };
}
