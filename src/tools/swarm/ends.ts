// How each connection of a run ended, and whether each end that was not graceful was the link's
// doing (end-judge.ts). The invariants read this: an end the link did not force breaks the fixed-mode
// promise; a fault that never acted on a connection the link ended first was not exercised.
import { msToUs, usToSeconds } from '../../core/engine/index.js';
import type { Micros } from '../../core/engine/index.js';
import type { RunResult } from '../../model/session/index.js';
import { endCauseText } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';
import type { EndEvidence } from './end-evidence.js';
import { judgeEnd } from './end-judge.js';
import type { EndVerdict, Slack } from './end-judge.js';
import type { MessageRef } from '../../model/transport/index.js';

export interface PeerEnd {
  readonly role: Role;
  readonly state: string;
  readonly atUs: number;
  /** The peer's own account (endCauseText). */
  readonly cause: string;
  /** Not graceful and judged against the wire (null: graceful, or not judged in this mode). */
  readonly verdict: EndVerdict | null;
  /** The message the end was about (given up, or holding up a drain), if any. */
  readonly message: MessageRef | null;
}

export interface ConnectionEnds {
  readonly client: number;
  readonly ends: readonly PeerEnd[];
  /** Both ends closed gracefully. */
  readonly closedBoth: boolean;
  /** It ended at a deadline the link forced, and no end of it was unforced. */
  readonly endedByLink: boolean;
}

/** The longest update period of either role in any phase: how late an update may read an arrival. */
function updateSlack(result: RunResult): Slack {
  const scenario = result.session.scenario;
  let ms = Math.max(scenario.params.updatePeriodMs.server, scenario.params.updatePeriodMs.client);
  for (const phase of scenario.traffic.phases) {
    if ('updatePeriodMs' in phase && phase.updatePeriodMs)
      ms = Math.max(ms, phase.updatePeriodMs.server ?? 0, phase.updatePeriodMs.client ?? 0);
  }
  return { updateUs: msToUs(ms) };
}

/** Every connection's ends; `evidence` null judges nothing (stock mode promises nothing about ends). */
export function connectionEnds(
  result: RunResult,
  evidence: EndEvidence | null,
  isEnded: (state: string) => boolean,
): ConnectionEnds[] {
  const slack = updateSlack(result);
  return result.session.connections.map((c) => {
    const peers = { server: c.serverPeer, client: c.clientPeer };
    const ends: PeerEnd[] = [];
    for (const role of ['server', 'client'] as const) {
      const peer = peers[role];
      if (!isEnded(peer.state) || peer.endCause === null) continue;
      const graceful = peer.endCause.kind === 'closed' || peer.endCause.kind === 'halted';
      const verdict = evidence === null || graceful ? null : judgeEnd(evidence, c.client, role, peers, slack);
      const cause = peer.endCause;
      const message =
        cause.kind === 'message-given-up'
          ? cause.message
          : cause.kind === 'drain-deadline'
            ? cause.oldestUnacked
            : null;
      ends.push({
        role,
        state: peer.state,
        atUs: evidence?.endOf(c.client, role) ?? Number.NaN,
        cause: endCauseText(cause),
        verdict,
        message,
      });
    }
    const closedBoth = ends.length === 2 && ends.every((e) => e.state === 'closed');
    const judged = ends.filter((e) => e.verdict !== null);
    return {
      client: c.client,
      ends,
      closedBoth,
      endedByLink: judged.length > 0 && judged.every((e) => e.verdict?.forced === true),
    };
  });
}

/** "server gave-up at 64.945 s: gave up high seq 812 at its message-age after 22 sends (forced: the link lost …)". */
export function peerEndText(e: PeerEnd, many: boolean, client: number): string {
  const at = Number.isNaN(e.atUs) ? '' : ` at ${usToSeconds(e.atUs as Micros).toFixed(3)} s`;
  const judged = e.verdict === null ? '' : ` (${e.verdict.forced ? 'forced: ' : ''}${e.verdict.evidence})`;
  return `${many ? `client ${client}'s ` : ''}${e.role} ${e.state}${at}: ${e.cause}${judged}`;
}
