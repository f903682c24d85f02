// Two builds of the bin on one command, run in turn (old, new, old, new, …) in
// fresh processes, so a noisy machine slows both alike. Prints one JSON line:
// each side's median wall, and the median over pairs of old wall / new wall.
//   node bench/paired.mjs --old /tmp/base/dist/cli/main.js [--new dist/cli/main.js] [--pairs 7] -- run long-session --json
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const argv = process.argv.slice(2);
const cut = argv.indexOf('--');
if (cut < 0) throw new Error('paired: give the command after --');
const own = argv.slice(0, cut);
const command = argv.slice(cut + 1);
const option = (name, fallback) => (own.includes(name) ? own[own.indexOf(name) + 1] : fallback);
const oldCli = option('--old', null);
if (oldCli === null) throw new Error('paired: --old <bin> is required');
const newCli = resolve(option('--new', 'dist/cli/main.js'));
const pairs = Number(option('--pairs', 7));

function wall(cli) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [cli, ...command], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${cli} ${command.join(' ')} exited ${r.status}: ${r.stderr}`);
  return seconds;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const olds = [];
const news = [];
for (let i = 0; i < pairs; i++) {
  olds.push(wall(resolve(oldCli)));
  news.push(wall(newCli));
}
const ratios = olds.map((o, i) => o / news[i]);
process.stdout.write(
  `${JSON.stringify({ command: command.join(' '), old: oldCli, new: newCli, pairs, oldMedianSeconds: median(olds), newMedianSeconds: median(news), speedupMedianOfPairs: median(ratios), oldAll: olds, newAll: news })}\n`,
);
