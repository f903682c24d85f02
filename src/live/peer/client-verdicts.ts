// A client side of several clients (`peer client --clients N`): each client is
// judged on its own connection, by the same rules, as if it had run alone. A
// client the server refused or removed is named with what the wire shows; the
// others went on without it.
import { usToSeconds } from '../../core/engine/index.js';
import type { ChecksumManifest } from '../../model/traffic/index.js';
import type { ConnectionState } from '../../model/transport/index.js';
import { countVerdicts, evaluateConformance, requireExercised } from '../conformance/index.js';
import type { ConformanceCounts, ConformanceRule } from '../conformance/index.js';
import { checksumRefusal } from './checksum-refusal.js';
import type { LivePeer } from './live-peer.js';
import { judgedUntilUs } from './live-summary.js';

export interface ClientVerdict {
  /** The client's number in the scenario (1..--clients), and its connection's live index. */
  readonly client: number;
  readonly connection: number;
  /** Our socket of this client ("host:port"). */
  readonly local: string;
  readonly joinedAtS: number | null;
  /** Its connection's state at the end: open, closed (said goodbye), timed-out, gave-up, halted. */
  readonly state: ConnectionState;
  /** The server refused its checksum answer: the sentence that says what it did (checksum-refusal.ts). */
  readonly refused: string | null;
  /** Its rules, judged on its datagrams alone; join-completes is counted in. */
  readonly conformanceCounts: ConformanceCounts;
  readonly failedRules: readonly string[];
}

export interface ClientJudging {
  readonly rules: readonly ConformanceRule[];
  readonly requireExercised: boolean;
  readonly manifest: ChecksumManifest;
  readonly manifestFile: string | null;
  /** Our socket of each client, index = client - 1. */
  readonly locals: readonly string[];
}

export function clientVerdicts(live: LivePeer, judging: ClientJudging): ClientVerdict[] {
  const endUs = judgedUntilUs(live);
  return live.connections.map((c) => {
    const records = live.log.records.filter((r) => r.connection === c.id);
    const refusal =
      c.joinedAtUs === null ? checksumRefusal(records, judging.manifest, endUs, judging.manifestFile) : null;
    const joinedOk = c.joinedAtUs !== null;
    const joined = { rule: 'join-completes', status: joinedOk ? 'pass' : 'fail', passed: joinedOk } as const;
    const judged = [joined, ...evaluateConformance(records, judging.rules, { endUs })];
    const results = judging.requireExercised ? requireExercised(judged) : judged;
    return {
      client: c.client,
      connection: c.id,
      local: judging.locals[c.client - 1] ?? '?',
      joinedAtS: c.joinedAtUs === null ? null : usToSeconds(c.joinedAtUs),
      state: c.peer.state,
      refused: refusal?.summary ?? null,
      conformanceCounts: countVerdicts(results),
      failedRules: results.filter((r) => r.status === 'fail').map((r) => r.rule),
    };
  });
}

/** One line per client, under the conformance results. */
export function renderClientVerdicts(verdicts: readonly ClientVerdict[]): string {
  const lines = ['clients, each judged on its own connection:'];
  for (const v of verdicts) {
    const joined = v.joinedAtS === null ? 'did not join' : `joined at ${v.joinedAtS.toFixed(1)} s`;
    const { passed, failed, notExercised } = v.conformanceCounts;
    const failedText = failed === 0 ? '' : ` (${v.failedRules.join(', ')})`;
    lines.push(
      `  client ${v.client} ${v.local}: ${joined}, at the end ${v.state}; ${passed} passed, ${failed} failed${failedText}, ${notExercised} not exercised`,
    );
    if (v.refused !== null) lines.push(`    refused: ${v.refused}`);
  }
  return `${lines.join('\n')}\n`;
}
