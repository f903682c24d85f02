// Two projects. `unit` is the developer's loop (npm run test:fast, under 30 s on a
// 2-core machine): in-process tests that need no build. `integration` is everything
// else; npm test (CI) runs both. A test file belongs to integration when it starts a
// process or a worker (the built CLI, tshark, chromium, the sweep and compare pools),
// opens a UDP socket, or runs simulations long enough to take several seconds
// (measured per file with --reporter=json).
import { defineConfig } from 'vitest/config';
import CostSequencer from './test/support/sequencer.js';

const INTEGRATION = [
  // The built CLI, tshark or chromium in a child process; the sweep's worker pool (built).
  'test/capture/import-fifo.test.ts',
  'test/capture/import-tshark.test.ts',
  'test/capture/pcapng-export-*.test.ts',
  'test/capture/pcapng-interrupt.test.ts',
  'test/capture/pcapng-capture.test.ts',
  'test/capture/pcapng-comments.test.ts',
  'test/capture/pcapng-writer.test.ts',
  'test/cli/api.test.ts',
  'test/cli/bin.test.ts',
  'test/cli/compare.test.ts',
  'test/cli/decode-input.test.ts',
  'test/cli/pipe.test.ts',
  'test/cli/run-flags.test.ts',
  'test/dissector/**/*.test.ts',
  'test/docs/copy-commands.test.ts',
  'test/docs/examples.test.ts',
  'test/report/atomic.test.ts',
  'test/report/reports.test.ts',
  'test/report/settings.test.ts',
  'test/scenarios/stored.test.ts',
  'test/sweep/cli.test.ts',
  'test/sweep/interrupt.test.ts',
  // Live UDP: peers, proxies and the conformance campaign on real sockets.
  'test/live/boundary.test.ts',
  'test/live/conform-cli.test.ts',
  'test/live/conform-limits.test.ts',
  'test/live/conform.test.ts',
  'test/live/conform-planted.test.ts',
  'test/live/goodbye.test.ts',
  'test/live/mixed-ends.test.ts',
  'test/live/peer-cli.test.ts',
  'test/live/peer-dialect.test.ts',
  'test/live/peer-manifest.test.ts',
  'test/live/peer-manifest-file.test.ts',
  'test/live/peer-proxy.test.ts',
  'test/live/peer.test.ts',
  'test/live/proxy-cli.test.ts',
  'test/live/proxy-dialect.test.ts',
  'test/live/proxy-limits.test.ts',
  'test/live/flood.test.ts',
  'test/live/proxy.test.ts',
  // A soak of real processes on loopback, and its report in headless Chromium.
  'test/soak/soak-cli.test.ts',
  // In-process virtual network, but 50 runs of 20 s each: seconds of CPU.
  'test/live/reconnect-swarm.test.ts',
  // Long simulations: swarms, shrinking, seed sweeps, reproductions, multi-hour sessions, regenerated reports.
  'test/capture/analyze-against.test.ts',
  'test/capture/analyze-limits.test.ts',
  'test/check/**/*.test.ts',
  'test/layering/time-units.test.ts',
  'test/report/committed.test.ts',
  'test/report/long-session.test.ts',
  'test/report/table-verdicts.test.ts',
  'test/reproduce/**/*.test.ts',
  'test/rtype/reproduce-table.test.ts',
  'test/rtype/scheme-reports.test.ts',
  'test/scenarios/builtins.test.ts',
  'test/scenarios/limits.test.ts',
  'test/session/fixed-promise.test.ts',
  'test/session/multi-client-*.test.ts',
  'test/session/wrap-hazard.test.ts',
  'test/shrink/default-out.test.ts',
  'test/shrink/multi-client.test.ts',
  'test/shrink/planted.test.ts',
  'test/swarm/**/*.test.ts',
  'test/transport/wraparound.test.ts',
];

/**
 * Files at once: two, one per core. test/support/sequencer.ts orders the files so that a live file
 * (mostly waiting on sockets and timers) runs beside a CPU-bound one. Four at once took 502 s
 * instead of ~900, but drove the load to 17 and starved the live peers' timers past the 2 s
 * retransmit interval. Vitest's own default is one fewer than the cores. BCSIM_TEST_WORKERS overrides it.
 */
const WORKERS = Number(process.env.BCSIM_TEST_WORKERS ?? 2);

export default defineConfig({
  test: {
    // Generous: tests must pass while the other core is busy.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: WORKERS,
    // Tests of a describe.concurrent at once: peer.test's six pairs wait on sockets together (~32 s, not 62).
    maxConcurrency: 6,
    sequence: { sequencer: CostSequencer },
    // Each project sets its own include: `extends` would add the root's to it.
    projects: [
      // One module graph per worker (no per-file isolation): importing src/ anew for every file
      // was over half of the tier's time. These tests keep no state between files.
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: INTEGRATION, isolate: false } },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
    ],
  },
});
