// Switches and parameters that do nothing under the design chosen:
// a setting that is silently ignored reads like a result. Each rule
// names the setting and the switch that governs it.
import type { SwitchPatch, TransportParams, TransportSwitches } from './switches.js';
import { DEFAULT_PARAMS } from './switches.js';

/**
 * Warnings for what was set explicitly (`explicit`: the switch overrides a user
 * wrote; `params`: the run's parameters, compared with the defaults) but has no
 * effect under `switches`.
 */
export function ineffectiveSettings(
  switches: TransportSwitches,
  explicit: SwitchPatch,
  params: TransportParams,
): string[] {
  const out: string[] = [];
  const paramSet = (name: keyof TransportParams) => params[name] !== DEFAULT_PARAMS[name];
  const twoPass = switches.ackOutbox === 'two-pass-gated';
  if (explicit.ackSendLimit !== undefined && twoPass) {
    out.push(
      'ackSendLimit has no effect: ackOutbox is two-pass-gated, which sends an entry ackPassOneLimit times in pass 1 and frees it at ackFreeAtCount (transport parameters)',
    );
  }
  if (!twoPass) {
    for (const name of ['ackPassOneLimit', 'ackFreeAtCount'] as const) {
      if (paramSet(name))
        out.push(
          `transport.${name} has no effect: ackOutbox is single-pass-bounded, which frees an entry after ackSendLimit sends`,
        );
    }
    for (const name of ['gateOpeners', 'gateScope'] as const) {
      if (explicit[name] !== undefined)
        out.push(`${name} has no effect: ackOutbox is single-pass-bounded, which has no gated pass 2`);
    }
  }
  if (twoPass && explicit.gateScope === 'update' && params.datagramsPerUpdate === 1) {
    out.push('gateScope update has no effect with transport.datagramsPerUpdate 1: an update is one datagram');
  }
  const retransmit = explicit.retransmit ?? {};
  if (retransmit.stepMs !== undefined && switches.retransmit.backoff !== 'linear') {
    out.push(
      `retransmit.stepMs has no effect: retransmit.backoff is ${switches.retransmit.backoff} (only linear adds a step)`,
    );
  }
  if (retransmit.capMs !== undefined && switches.retransmit.backoff === 'fixed') {
    out.push('retransmit.capMs has no effect: retransmit.backoff is fixed (the interval never grows)');
  }
  const keepalive = explicit.keepalive ?? {};
  if (switches.keepalive.senders === 'none') {
    for (const name of ['message', 'idleCounts'] as const) {
      if (keepalive[name] !== undefined)
        out.push(`keepalive.${name} has no effect: keepalive.senders is none (no idle keepalive is sent)`);
    }
  }
  if (paramSet('disconnectedPeerLingerMs') && switches.closePolicy === 'drain') {
    out.push(
      'transport.disconnectedPeerLingerMs has no effect: closePolicy is drain (it applies to the immediate close)',
    );
  }
  return out;
}
