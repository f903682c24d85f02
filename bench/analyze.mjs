// `bcsim analyze` throughput in a fresh process: prints {wallSeconds, datagrams}.
// Times the analysis alone (read, classify, decrypt, decode, figures), after module loading.
// Usage: node bench/analyze.mjs <capture>
import { analyzeCapture } from '../dist/analysis/capture/index.js';

const start = process.hrtime.bigint();
const result = analyzeCapture(process.argv[2]);
const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
if (!result.ok) throw new Error(`analyze failed: ${JSON.stringify(result.error)}`);
process.stdout.write(JSON.stringify({ wallSeconds, datagrams: result.analysis.packets.bc }));
