// Every `bcsim …` / `npx bcsim …` example in README.md, CONTRIBUTING.md, docs/*.md,
// bench/README.md, dissector/README.md and every command's --help runs, as printed, and exits with
// the code its text gives it (0 when the text says nothing). The examples are found
// by rules (test/support/doc-examples.ts), so a new example is covered without
// touching this file. What the test adds, all listed in test/support/example-runner.ts:
// - placeholder files for the examples that name the user's own (PLACEHOLDERS);
// - bcsim's own counterpart for the live commands (peer, proxy, conform) on free
//   ports: a stock `bcsim peer server` (for conform, docs/conform.md's reference
//   server: CONFORM_COUNTERPART) unless the text names another (NAMED_COUNTERPARTS),
//   a `bcsim peer client` for a documented server;
// - live wall-time durations capped (LIVE_SECONDS), and conform's waits matched to
//   a short server peer timeout (CONFORM_FLAGS), which a documented server beside a
//   conform gets too;
// - absolute /tmp/… and /results/… paths moved into the sandbox.
// A README example must also run as intended: no warning on its stderr (WARNING_FREE_DOCS).
// A block with an example ending in `&` runs in order, as one job (the `&` one beside
// the rest); every other example runs alone. Identical commands run once.
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { helpExamples, markdownExamples } from '../support/doc-examples.js';
import type { DocExample } from '../support/doc-examples.js';
import {
  CONFORM_COUNTERPART,
  LIVE_SECONDS,
  NAMED_COUNTERPARTS,
  ROOT,
  WARNING_FREE_DOCS,
  counterpartClient,
  counterpartServer,
  liveRole,
  makeTemplate,
  portsFor,
  rewrite,
  runShell,
  sandbox,
  warningLines,
} from '../support/example-runner.js';
import type { Outcome, Running } from '../support/example-runner.js';

/** The whole test, examples and counterparts, must end within this (CI runs it on 2 cores). */
const BUDGET_MS = 360_000;
/** One simulated example (a real command a user runs and waits for). */
const EXAMPLE_TIMEOUT_MS = 150_000;
/** Simulated examples are CPU-bound: one at a time per core (up to 4). */
const CPU_LANES = Math.max(1, Math.min(4, availableParallelism()));

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  'dissector/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

async function collect(): Promise<DocExample[]> {
  const found = DOCS.flatMap((file) => markdownExamples(file, readFileSync(join(ROOT, file), 'utf8')));
  const top = (await cli(['--help'])).stdout;
  const commands = [...top.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]).filter((c) => c !== 'help');
  for (const command of commands) found.push(...helpExamples(command, (await cli([command, '--help'])).stdout));
  return found;
}

/** One example as the test runs it; identical commands share one run. */
interface Planned {
  readonly key: string;
  readonly example: DocExample;
  /** Every place that prints this command. */
  readonly wheres: string[];
}

interface Job {
  readonly steps: Planned[];
  readonly live: boolean;
}

function plan(examples: readonly DocExample[]): { planned: Planned[]; jobs: Job[] } {
  const sequenced = new Set(examples.filter((e) => e.background).map((e) => e.block));
  const planned: Planned[] = [];
  const byCommand = new Map<string, Planned>();
  const jobs: Job[] = [];
  const blocks = new Map<string, Job>();
  for (const example of examples) {
    const normal = example.command.replace(/^npx /, '');
    if (sequenced.has(example.block)) {
      const step: Planned = { key: `${example.where} ${normal}`, example, wheres: [example.where] };
      planned.push(step);
      let job = blocks.get(example.block);
      if (job === undefined) blocks.set(example.block, (job = { steps: [], live: true }));
      job.steps.push(step);
      continue;
    }
    const same = byCommand.get(normal);
    if (same !== undefined && same.example.expectedExit === example.expectedExit) {
      same.wheres.push(example.where);
      continue;
    }
    const step: Planned = { key: `${example.where} ${normal}`, example, wheres: [example.where] };
    byCommand.set(normal, step);
    planned.push(step);
    jobs.push({ steps: [step], live: liveRole(normal) !== null });
  }
  return { planned, jobs: [...blocks.values(), ...jobs] };
}

const READY = (command: string) => (liveRole(command) === 'proxy' ? 'listening on' : 'waiting for clients');

/** A job in its own sandbox, with its counterparts; every step's outcome. */
async function runJob(job: Job, template: string, deadline: number): Promise<Map<string, Outcome>> {
  const dir = sandbox(template);
  const results = new Map<string, Outcome>();
  const commands = job.steps.map((s) => s.example.command);
  const ports = await portsFor(commands);
  const helpers: Running[] = [];
  const background: Array<{ step: Planned; running: Running }> = [];
  const timeLeft = () => Math.max(1000, Math.min(EXAMPLE_TIMEOUT_MS, deadline - performance.now()));
  try {
    const conform = commands.some((c) => /\bbcsim conform\b/.test(c));
    // A server for the clients, unless the job starts its own.
    const targets = commands
      .map((c) => /--(?:connect|server|upstream) 127\.0\.0\.1:(\d+)/.exec(c)?.[1])
      .filter((p): p is string => p !== undefined);
    // A documented server or proxy of the job listens there itself.
    const served = new Set(
      commands.map((c) => /--listen 127\.0\.0\.1:(\d+)/.exec(c)?.[1]).filter((p) => p !== undefined),
    );
    for (const target of new Set(targets)) {
      if (served.has(target)) continue;
      const named = NAMED_COUNTERPARTS.find((n) => commands.some((c) => n.example.test(c)));
      const server = counterpartServer(
        dir,
        ports.get(target) as number,
        named?.server ?? (conform ? CONFORM_COUNTERPART : undefined),
      );
      helpers.push(server);
      await server.says('waiting for clients');
    }
    for (const step of job.steps) {
      const notes: string[] = [];
      const target = /--(?:connect|server|upstream) 127\.0\.0\.1:(\d+)/.exec(step.example.command)?.[1];
      const command = rewrite(step.example.command, dir, ports, notes, {
        background: step.example.background,
        ourServer: target !== undefined && !served.has(target),
        conformJob: conform,
      });
      const role = liveRole(step.example.command);
      const running = runShell(command, dir, timeLeft(), notes);
      if (step.example.background) {
        background.push({ step, running });
        await running.says(READY(step.example.command));
        continue;
      }
      if (role === 'server' && !targets.includes(/--listen 127\.0\.0\.1:(\d+)/.exec(step.example.command)?.[1] ?? '')) {
        await running.says('waiting for clients');
        helpers.push(counterpartClient(dir, Number(/127\.0\.0\.1:(\d+)/.exec(command)?.[1])));
        notes.push(`a bcsim peer client joined it for ${LIVE_SECONDS.peer}s`);
      }
      if (role === 'proxy' && !/--duration /.test(command)) {
        // It runs until SIGINT: stop it as a user would, once it has run a while.
        await running.says('listening on');
        setTimeout(() => running.stop('SIGINT'), LIVE_SECONDS.proxy * 1000);
        notes.push(`stopped with SIGINT after ${LIVE_SECONDS.proxy}s`);
      }
      results.set(step.key, await running.done);
    }
    for (const { step, running } of background) {
      running.stop('SIGINT');
      results.set(step.key, await running.done);
    }
  } finally {
    for (const helper of helpers) helper.stop('SIGINT');
    await Promise.all(helpers.map((h) => h.done));
    for (const { running } of background) running.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** Live jobs (mostly waiting on the wall clock) all at once; simulated ones CPU_LANES at a time. */
async function runAll(jobs: readonly Job[], template: string): Promise<Map<string, Outcome>> {
  const deadline = performance.now() + BUDGET_MS - 30_000;
  const results = new Map<string, Outcome>();
  const collectInto = async (job: Job) => {
    for (const [key, outcome] of await runJob(job, template, deadline)) results.set(key, outcome);
  };
  const queue = jobs.filter((j) => !j.live);
  const lane = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) await collectInto(job);
  };
  await Promise.all([...jobs.filter((j) => j.live).map(collectInto), ...Array.from({ length: CPU_LANES }, lane)]);
  return results;
}

const examples = await collect();
const { planned, jobs } = plan(examples);
let template = '';
let outcomes = new Map<string, Outcome>();

describe('every documented example', () => {
  beforeAll(async () => {
    template = makeTemplate();
    outcomes = await runAll(jobs, template);
  }, BUDGET_MS);
  afterAll(() => {
    if (process.env.BCSIM_EXAMPLE_TIMES)
      for (const [k, o] of [...outcomes].sort((a, b) => b[1].ms - a[1].ms))
        console.log(`${(o.ms / 1000).toFixed(1).padStart(6)} s  exit ${o.code}  ${k}`);
    if (template !== '') rmSync(template, { recursive: true, force: true });
  });

  it("is found in every document and every command's --help", () => {
    const sources = new Set(examples.map((e) => e.where.replace(/:\d+$/, '')));
    for (const doc of [
      'README.md',
      'docs/captures.md',
      'docs/compare-and-check.md',
      'docs/conform.md',
      'docs/live.md',
      'docs/sweeps.md',
      'docs/rtype.md',
      'bcsim run --help',
      'bcsim compare --help',
      'bcsim peer --help',
      'bcsim conform --help',
    ])
      expect(sources).toContain(doc);
    expect(planned.length).toBeGreaterThan(60);
  });

  for (const step of planned) {
    const { example } = step;
    it(`${step.wheres.join(', ')}: ${example.command} → exit ${example.expectedExit}`, () => {
      const outcome = outcomes.get(step.key);
      expect(outcome, 'did not run (the time budget ran out?)').toBeDefined();
      const o = outcome as Outcome;
      const detail = [
        `exit ${o.code}${o.signal ? ` (signal ${o.signal})` : ''} after ${(o.ms / 1000).toFixed(1)} s; expected ${example.expectedExit} (${example.exitFrom})`,
        ...o.notes.map((n) => `test: ${n}`),
        `stderr: ${o.stderr.slice(-1500)}`,
        // A report leads with its FAILs: keep the head of a long stdout as well as its tail.
        `stdout: ${o.stdout.length > 3000 ? `${o.stdout.slice(0, 1500)}\n…\n${o.stdout.slice(-1500)}` : o.stdout}`,
      ].join('\n');
      expect(o.code, detail).toBe(example.expectedExit);
      if (step.wheres.some((w) => WARNING_FREE_DOCS.includes(w.replace(/:\d+$/, ''))))
        expect(warningLines(o.stderr), `${detail}\na README example warns`).toEqual([]);
    });
  }
});
