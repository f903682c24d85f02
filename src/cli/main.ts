#!/usr/bin/env -S node --max-old-space-size=896
// Entry point of the `bcsim` binary: run the CLI (start.ts) against the real process.
// The heap cap makes V8 collect before a run passes ~1 GB: live data is bounded by
// explicit limits, but V8 otherwise lets garbage grow toward its default.
// The CLI runs from the bundle the build makes, with its code cache (code-cache.ts);
// a build without one (tsc alone) runs the modules themselves. The bin is this file
// bundled as CommonJS (dist/cli/main.cjs): an ES module entry costs ~0.01 s more CPU
// at start (Node's ESM loader); `node dist/cli/main.js` runs the same CLI.
import { runBundle } from './code-cache.js';

if (!runBundle()) void import('./start.js');
