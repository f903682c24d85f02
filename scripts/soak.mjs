// `npm run soak`: the fixed-mode swarm on ten generator seeds, 1,000 runs each (about 15 minutes
// of one core), every failure printed with its repro, swarm and shrink lines. CI runs three seeds
// (test/swarm); this is the longer look before a release or after a change to the transport.
//
//   npm run soak                                  ten seeds x 1,000 runs, one at a time
//   npm run soak -- --jobs 2                      two seeds at once (a core each)
//   npm run soak -- --seeds 5,6 --runs 200        other seeds, fewer runs
//   npm run soak -- --switch closePolicy=immediate   a mode switch in every run (as bcsim swarm --switch)
//
// Exit 0 when no run failed, 1 when one did, 2 on a bad flag.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
// The bin as npm links it (package.json "bin").
const CLI = here(`../${JSON.parse(readFileSync(here('../package.json'), 'utf8')).bin.bcsim}`);
/** The committed generator seed, the two more CI runs, and seven others. */
const SOAK_SEEDS = [9062024, 11, 777, 4242, 1, 2, 3, 7, 42, 1234];
const SOAK_RUNS = 1000;

function usage(message) {
  process.stderr.write(
    `soak: ${message}\nusage: npm run soak -- [--seeds S,S,…] [--runs N] [--jobs N] [--switch name=value]…\n`,
  );
  process.exit(2);
}

function whole(flag, text, min, max) {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    usage(`${flag}: expected a whole number ${min}..${max}, got "${text ?? ''}"`);
  return Number(text);
}

function parseFlags(argv) {
  const flags = { seeds: SOAK_SEEDS, runs: SOAK_RUNS, jobs: 1, switches: [] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[++i];
    if (flag === '--seeds') flags.seeds = (value ?? '').split(',').map((s) => whole('--seeds', s, 0, 4294967295));
    else if (flag === '--runs') flags.runs = whole('--runs', value, 1, 1_000_000);
    else if (flag === '--jobs') flags.jobs = whole('--jobs', value, 1, availableParallelism());
    else if (flag === '--switch' && value !== undefined) flags.switches.push(value);
    else usage(`unknown flag "${flag}"`);
  }
  return flags;
}

/** One seed's swarm in its own process: its whole text report, and its exit code. */
function swarm(seed, runs, switches) {
  return new Promise((resolve, reject) => {
    const args = [
      CLI,
      'swarm',
      '--seed',
      String(seed),
      '--runs',
      String(runs),
      '--all',
      ...switches.flatMap((s) => ['--switch', s]),
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ seed, code, out }));
  });
}

async function main() {
  const { seeds, runs, jobs, switches } = parseFlags(process.argv.slice(2));
  process.stdout.write(
    `soak: ${seeds.length} generator seed${seeds.length === 1 ? '' : 's'} x ${runs} fixed-mode runs, ${jobs} at a time\n`,
  );
  const queue = [...seeds];
  const results = [];
  const worker = async () => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      const r = await swarm(seed, runs, switches);
      // Each seed's report whole, as it finishes: the failures with their commands, then its summary line.
      process.stdout.write(r.out.endsWith('\n') ? r.out : `${r.out}\n`);
      results.push(r);
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  const failed = results.filter((r) => r.code !== 0);
  const failures = results.reduce(
    (n, r) => n + Number(/, (\d+) failing/.exec(r.out)?.[1] ?? (r.code === 0 ? 0 : 1)),
    0,
  );
  process.stdout.write(
    `soak: ${seeds.length * runs} runs on seeds ${seeds.join(', ')}: ${failures} failing${failed.length > 0 ? ` (seeds ${failed.map((r) => r.seed).join(', ')})` : ''}\n`,
  );
  process.exit(failed.length > 0 ? 1 : 0);
}

await main();
