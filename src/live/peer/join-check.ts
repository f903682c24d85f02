// The first conformance result of every `bcsim peer` run: each
// connection completed the join (the counterpart answered every step, through
// NewPlayerInGame and the server's last reply). Without it no other rule
// means much, and a CI job must fail.
import { usToSeconds } from '../../core/engine/index.js';
import type { ConformanceResult, Evidence } from '../conformance/index.js';
import type { LivePeer } from './live-peer.js';

export function joinResult(live: LivePeer): ConformanceResult {
  const evidence: Evidence[] = [];
  let checked = 0;
  for (const c of live.connections) {
    // A server's connection that no client opened is not judged.
    if (live.role === 'server' && c.address === null) continue;
    checked++;
    if (c.joinedAtUs !== null) continue;
    evidence.push({
      connection: c.client,
      timeS: usToSeconds(live.clock.now),
      seq: 0,
      detail: `the join did not complete: the counterpart did not answer every join step (last state ${c.peer.state}; see its datagrams in the summary)`,
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
