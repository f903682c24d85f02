// The first conformance result of every `bcsim peer` run: each
// connection completed the join (the counterpart answered every step, through
// NewPlayerInGame and the server's last reply). Without it no other rule
// means much, and a CI job must fail.
import { usToSeconds } from '../../core/engine/index.js';
import type { ConformanceResult, Evidence } from '../conformance/index.js';
import type { ChecksumRefusal } from './checksum-refusal.js';
import type { LivePeer } from './live-peer.js';

/** `refusal`: the server refused a checksum answer of ours (checksum-refusal.ts), which then is the evidence. */
export function joinResult(live: LivePeer, refusal: ChecksumRefusal | null = null): ConformanceResult {
  const evidence: Evidence[] = [];
  let checked = 0;
  // Every connection a client opened, those whose place a later client took included.
  for (const c of live.places.served()) {
    checked++;
    if (c.joinedAtUs !== null) continue;
    evidence.push({
      connection: c.id,
      timeS: refusal === null ? usToSeconds(live.clock.now) : refusal.answeredAtS,
      seq: refusal === null ? 0 : refusal.seq,
      detail:
        refusal === null
          ? `the join did not complete: the counterpart did not answer every join step (last state ${c.peer.state}; see its datagrams in the summary)`
          : `the join did not complete: ${refusal.summary}`,
      hex: '',
    });
  }
  if (live.role === 'server' && checked === 0) {
    evidence.push({
      connection: 0,
      timeS: usToSeconds(live.clock.now),
      seq: 0,
      detail: 'no client connected',
      hex: '',
    });
    checked = 1;
  }
  return {
    rule: 'join-completes',
    name: 'join-completes',
    title: 'Every connection completed the join (connect, checksum rounds, settings, NewPlayerInGame).',
    // Never "not exercised": a client always tries to join, and a server no client reached fails.
    status: evidence.length === 0 ? 'pass' : 'fail',
    passed: evidence.length === 0,
    checked,
    violations: evidence.length,
    evidence,
  };
}
