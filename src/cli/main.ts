#!/usr/bin/env -S node --max-old-space-size=896
// Entry point of the `bcsim` binary (dist/cli/main.js, the build's ES module bundle).
// The heap cap makes V8 collect before a run passes ~1 GB: live data is bounded by
// explicit limits, but V8 otherwise lets garbage grow toward its default.
import module from 'node:module';

// Node 22.1+ keeps the compiled code of the modules loaded after this call between runs;
// Node 20 has no compile cache and compiles the CLI at every start.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// Loaded after the call above, so the cache covers it; each command loads its own module on use.
await import('./start.js');
