// `bcsim analyze FILE --against <scenario>`: the same figures computed the same
// way from a simulated run. An observer hands every datagram the simulated
// peers send (the ones the link later drops included, as a capture on the wire
// would show them) to a WireAnalyzer, on connections addressed as the
// exporter addresses them (server 10.10.10.1:22101, client k
// 10.10.10.(238+k):22101+k). The observer also samples the model's own
// ACK-outbox of each connection end once per simulated second, so the
// estimate can be held against the truth.
import { secondsToUsUnrounded } from '../../core/engine/index.js';
import type { Scenario } from '../../model/scenario/index.js';
import { runScenario } from '../../model/session/index.js';
import type { RunOptions, SessionObserver } from '../../model/session/index.js';
import type { Role } from '../../model/transport/index.js';
import { ANALYSIS_SCHEMA, SAMPLE_STEP_US, WireAnalyzer } from './analyze.js';
import type { AnalyzerOptions, OutboxEstimate, OutboxSeries, WireAnalysis } from './analyze.js';
import type { CaptureConnection, CaptureEndpoint } from './bc-packets.js';
import { BC_PORT } from './payload-classifier.js';
import { endpointKey, formatEndpoint } from '../../core/pcap/index.js';

interface SimulationSource {
  kind: 'simulation';
  scenario: string;
  mode: string;
  seed: number;
  durationS: number;
  traceHash: string;
}

/** The model's ACK-outbox of one end, sampled each simulated second. */
interface GaugeSeries {
  startS: number;
  stepS: number;
  ackOutbox: number[];
  deadZone: number[];
}

/** The estimate held against the model's gauge at the samples where the estimate is defined. */
interface Agreement {
  samples: number;
  /** Largest |estimate - gauge| over them (null without samples). */
  maxAbsDiff: number | null;
  /** Samples where they differ by more than one entry. */
  beyondOne: number;
  deadZoneMaxAbsDiff: number | null;
}

export interface SimulatedConnectionTruth {
  index: number;
  slot: number | null;
  gauges: Record<Role, GaugeSeries>;
  agreement: Record<Role, Agreement>;
}

export interface SimulatedAnalysis extends WireAnalysis {
  schema: typeof ANALYSIS_SCHEMA;
  source: SimulationSource;
  packets: { bc: number };
  /** The model's own outbox per connection end, and how the wire estimate agrees with it. */
  truth: SimulatedConnectionTruth[];
}

const SERVER_IP = (10 << 24) | (10 << 16) | (10 << 8) | 1;

function endpoint(ip: number, port: number): CaptureEndpoint {
  return { key: endpointKey(ip >>> 0, port), ip: ip >>> 0, port, label: formatEndpoint(ip >>> 0, port) };
}

const SERVER: CaptureEndpoint = endpoint(SERVER_IP, BC_PORT);

/** Client k's end as the exporter addresses it. */
function clientEnd(client: number): CaptureEndpoint {
  return endpoint(((10 << 24) | (10 << 16) | (10 << 8) | (238 + client)) >>> 0, BC_PORT + client);
}

export interface AgainstOptions
  extends AnalyzerOptions,
    Pick<RunOptions, 'preset' | 'switches' | 'seed' | 'durationUs' | 'onProgress'> {}

/** Runs `scenario` and analyses its datagrams as if they had been captured. */
export function analyzeScenario(scenario: Scenario, options: AgainstOptions = {}): SimulatedAnalysis {
  const analyzer = new WireAnalyzer(options);
  const connections = new Map<number, CaptureConnection>();
  const gauges = new Map<number, Record<Role, { ackOutbox: number[]; deadZone: number[] }>>();
  let datagrams = 0;
  const sampled = new Set<number>();
  const connectionOf = (client: number, timeUs: number): CaptureConnection => {
    let c = connections.get(client);
    if (c === undefined) {
      c = {
        index: client,
        server: SERVER,
        client: clientEnd(client),
        slot: null,
        startSeen: true,
        firstUs: timeUs,
        lastUs: timeUs,
      };
      connections.set(client, c);
    }
    return c;
  };
  const observer: SessionObserver = {
    datagramSent(timeUs, from, bytes, _uids, _notes, client) {
      const c = connectionOf(client, timeUs);
      if (timeUs > c.lastUs) c.lastUs = timeUs;
      // The client's datagrams carry its slot once it has one, as on the wire.
      if (from === 'client' && bytes[0] !== 0xff) c.slot = bytes[0];
      datagrams++;
      analyzer.add(c, from, timeUs, bytes.length, bytes);
    },
    sample(timeUs, _totals, views) {
      // Once per simulated second; the run's final sample (after the last events, maybe between seconds) is not one of them.
      if (timeUs % SAMPLE_STEP_US !== 0) return;
      const k = timeUs / SAMPLE_STEP_US;
      if (sampled.has(k)) return;
      sampled.add(k);
      for (const view of views) {
        let g = gauges.get(view.client);
        if (g === undefined)
          gauges.set(
            view.client,
            (g = { server: { ackOutbox: [], deadZone: [] }, client: { ackOutbox: [], deadZone: [] } }),
          );
        const server = view.serverPeer.gauges();
        const client = view.clientPeer.gauges();
        g.server.ackOutbox[k] = server.ackOutbox;
        g.server.deadZone[k] = server.ackOutboxDeadZone;
        g.client.ackOutbox[k] = client.ackOutbox;
        g.client.deadZone[k] = client.ackOutboxDeadZone;
      }
    },
  };
  const { summary } = runScenario(scenario, { ...options, observer });
  const durationUs = secondsToUsUnrounded(summary.simulatedSeconds);
  const wire = analyzer.finish(durationUs);
  const truth: SimulatedConnectionTruth[] = [];
  for (const connection of wire.connections) {
    const g = gauges.get(connection.index) ?? {
      server: { ackOutbox: [], deadZone: [] },
      client: { ackOutbox: [], deadZone: [] },
    };
    const series = (role: Role): GaugeSeries => ({
      startS: 1,
      stepS: 1,
      ackOutbox: dense(g[role].ackOutbox),
      deadZone: dense(g[role].deadZone),
    });
    truth.push({
      index: connection.index,
      slot: connection.slot,
      gauges: { server: series('server'), client: series('client') },
      agreement: {
        server: agreement(connection.ackOutbox.server, g.server),
        client: agreement(connection.ackOutbox.client, g.client),
      },
    });
  }
  return {
    schema: ANALYSIS_SCHEMA,
    source: {
      kind: 'simulation',
      scenario: summary.scenario,
      mode: summary.mode,
      seed: summary.seed,
      durationS: summary.simulatedSeconds,
      traceHash: summary.traceHash,
    },
    packets: { bc: datagrams },
    ...wire,
    truth,
  };
}

/** Samples 1, 2, … (index 0 is time 0, never sampled). */
function dense(values: number[]): number[] {
  const out: number[] = [];
  for (let k = 1; k < values.length; k++) out.push(values[k] ?? 0);
  return out;
}

/** The estimate's value at whole second k, or undefined when it has no sample there (or no estimate). */
export function sampleAt(series: OutboxSeries | null, k: number): number | undefined {
  if (series === null) return undefined;
  const offset = (k - series.startS) / series.stepS;
  if (!Number.isInteger(offset) || offset < 0 || offset >= series.values.length) return undefined;
  return series.values[offset];
}

/** |estimate - gauge| at every whole second where the estimate is defined. */
function agreement(estimate: OutboxEstimate, gauge: { ackOutbox: number[]; deadZone: number[] }): Agreement {
  let samples = 0;
  let maxAbsDiff: number | null = null;
  let deadMax: number | null = null;
  let beyondOne = 0;
  const defined = estimate.defined;
  if (defined !== null) {
    for (let k = Math.ceil(defined.fromS); k <= Math.floor(defined.untilS); k++) {
      const e = sampleAt(estimate.samples, k);
      const g = gauge.ackOutbox[k];
      if (e === undefined || g === undefined) continue;
      samples++;
      const diff = Math.abs(e - g);
      maxAbsDiff = Math.max(maxAbsDiff ?? 0, diff);
      if (diff > 1) beyondOne++;
      const ed = sampleAt(estimate.deadZoneSamples, k);
      const gd = gauge.deadZone[k];
      if (ed !== undefined && gd !== undefined) deadMax = Math.max(deadMax ?? 0, Math.abs(ed - gd));
    }
  }
  return { samples, maxAbsDiff, beyondOne, deadZoneMaxAbsDiff: deadMax };
}
