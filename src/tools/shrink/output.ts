// The shrunk run as files: the scenario (JSON, with its explicit fault lists), its wire trace
// (as `bcsim trace` writes it into a file) and its pcapng, side by side: out.json, out.trace,
// out.pcapng. Each file is written to a temporary and renamed, so a reader never sees half of one.
import { usToSeconds } from '../../core/engine/index.js';
import { basename, dirname, resolve } from 'node:path';
import { CaptureSet } from '../../analysis/capture/index.js';
import { writeFileAtomic } from '../../core/output/index.js';
import { runScenario } from '../../model/session/index.js';
import { formatEvent, traceHeader, traceScenario } from '../../model/trace/index.js';
import { loadDoc } from './case.js';
import type { Doc } from './case.js';

/** What `bcsim check` of the shrunk file should find broken, per invariant (its expect block). */
const EXPECT_BY_INVARIANT: Record<string, Record<string, { eq: number }>> = {
  '1 ledger: duplicate': { 'delivery.duplicateDeliveries': { eq: 0 } },
  '1 ledger: out of order': { 'delivery.outOfOrderDeliveries': { eq: 0 } },
  '1 ledger: corrupt': { 'delivery.corruptDeliveries': { eq: 0 } },
  '2 loss without an ended connection': { 'delivery.reliableLost': { eq: 0 } },
  '2 graceful close lost messages': { 'delivery.reliableLost': { eq: 0 } },
  '2 end the link did not force': { 'peers.*.gaveUp': { eq: 0 } },
  '3 liveness': { 'delivery.reliableInFlight': { eq: 0 } },
  '6 bounded queues': { 'peers.*.ackOutboxDeadZone.max': { eq: 0 } },
};

/** The shrunk document as a scenario file: a name, where it came from, and an expect block that fails. */
export function finishDocument(doc: Doc, from: string, target: string, invariant: string): Doc {
  const out: Doc = { ...doc, name: `shrunk-${String(doc.name ?? 'run')}`.slice(0, 200) };
  out.description = `Shrunk by bcsim shrink from: ${from}\nFails: ${target}`.slice(0, 10_000);
  const preset = String((doc.mode as Record<string, unknown> | undefined)?.preset ?? 'fixed');
  const expectation = EXPECT_BY_INVARIANT[invariant];
  if (expectation === undefined) delete out.expect;
  else out.expect = { [preset]: expectation };
  return out;
}

/** A shrunk run is short; a trace longer than this is cut (with a note) rather than held in memory. */
const MAX_TRACE_LINES = 1_000_000;

export interface ShrinkFiles {
  readonly scenario: string;
  readonly trace: string;
  readonly pcap: string;
}

/** out.json → out.trace and out.pcapng beside it. */
export function filesFor(out: string, cwd: string): ShrinkFiles {
  const scenario = resolve(cwd, out);
  const stem = scenario.replace(/\.json$/, '');
  return { scenario, trace: `${stem}.trace`, pcap: `${stem}.pcapng` };
}

export function writeShrunk(doc: Doc, files: ShrinkFiles): void {
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const scenario = loadDoc(doc, files.scenario);
  // The trace, as `bcsim trace <file> --bytes full` prints it.
  const lines = [
    `# ${scenario.name} · mode ${scenario.preset} · seed ${scenario.seed}`,
    traceHeader('full', scenario.clients),
  ];
  let cut = 0;
  traceScenario(scenario, {
    keep: false,
    onEvent: (e) => {
      if (lines.length < MAX_TRACE_LINES) lines.push(formatEvent(e, { bytes: 'full', clients: scenario.clients }));
      else cut++;
    },
  });
  if (cut > 0) lines.push(`# … ${cut} more events cut (bcsim trace ${basename(files.scenario)} prints them all)`);
  const captures = new CaptureSet();
  captures.guard(() => {
    const capture = captures.open(
      files.pcap,
      `bcsim shrink ${basename(files.scenario)}, mode ${scenario.preset}, seed ${scenario.seed}, ${usToSeconds(scenario.durationUs)} s simulated`,
    );
    runScenario(scenario, { observer: capture.recorder });
  });
  writeFileAtomic(dirname(files.scenario), basename(files.scenario), text);
  writeFileAtomic(dirname(files.trace), basename(files.trace), `${lines.join('\n')}\n`);
  captures.commit();
}
