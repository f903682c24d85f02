// The measured join sequence on loopback (docs/sources.md J1).
// Each step is a reply: it starts when the previous step's last message has been
// delivered to the replying side, after a think time. Sizes are whole-message
// bytes on the wire; step 8's ~1000-byte payload splits into 3 fragments. The
// checksum rounds are the scenario's manifest (traffic.manifest, docs/sources.md 31):
// the default one gives the measured steps, another one more or fewer rounds.
// The think times are the timeline's (join-timing.ts, docs/sources.md 33).
//
// The server's requests have no think time of their own (the reply is queued while
// the message is dispatched, so it leaves in the next update with the ACK made for
// it: docs/sources.md 16, the captured "ACK 0 with request r1", "ACK 3 with request
// 0xFF"), except request r2, which the capture shows alone (seq 2, no ACK): it
// waits one server update. After the round 2 and 0xFF responses the server takes
// the time the timeline shows before it answers (checkMs, traffic.serverChecks).
import { PEER_ID_UNASSIGNED, TYPE_CONNECT_ACK, TYPE_DATA, TYPE_GAME } from '../../core/codec/index.js';
import type { DataType } from '../../core/codec/index.js';
import { clientIdentity, keepalivePayload } from '../transport/index.js';
import type { Role } from '../transport/index.js';
import { checksumRequestPayload, checksumResponsePayload } from './checksum.js';
import { DEFAULT_MANIFEST, FINAL_ROUND, manifestProblem } from './manifest.js';
import type { ChecksumManifest, ManifestRound } from './manifest.js';
import { CAPTURED, Opcode, filledPayload } from './payloads.js';
import { STOCK_JOIN_TIMING } from './join-timing.js';
import type { JoinTiming } from './join-timing.js';

export interface JoinMessage {
  readonly label: string;
  /** The ConnectAck carries the slot the server assigned. */
  readonly slotAssignment?: true;
  /** The keepalive carries the client's identity: [slot][IPv4][UTF-16LE name] (docs/sources.md 12). */
  readonly identity?: true;
  readonly type: DataType;
  readonly reliable: boolean;
  readonly ordered: boolean;
  readonly payload: Uint8Array;
}

export interface JoinStep {
  readonly step: number;
  readonly from: Role;
  /** Think time after the trigger was delivered. */
  readonly delayMs: number;
  /**
   * The server's time answering a checksum response, beyond delayMs: the gap of the
   * timeline the update loop alone does not explain (traffic.serverChecks says how it is spent).
   */
  readonly checkMs?: number;
  /** Step whose last message triggers this one; null for the first. */
  readonly after: number | null;
  /** A client's answer to a recursive checksum round: its think time hashes a directory tree (traffic.treeHashing). */
  readonly hashesTree?: true;
  /** A checksum response: the round it answers (traffic.round2ThinkMs sets round 2's think time). */
  readonly round?: number;
  readonly messages: readonly JoinMessage[];
}

/**
 * A reliable, unordered 0x32 message of `wireBytes` total (5-byte header): the
 * captured join messages carry flags high byte 0x80/0x81, not ordered.
 */
function game(label: string, opcode: number, wireBytes: number, salt: number): JoinMessage {
  return {
    label,
    type: TYPE_GAME,
    reliable: true,
    ordered: false,
    payload: filledPayload(opcode, wireBytes - 5, salt),
  };
}

function captured(label: string, payload: Uint8Array): JoinMessage {
  return { label, type: TYPE_GAME, reliable: true, ordered: false, payload };
}

/** Joins built so far, by manifest object: a run's driver and its live bridge share one. */
const built = new WeakMap<ChecksumManifest, readonly JoinStep[]>();

/**
 * The join of a manifest (docs/sources.md 31): each checksum request asks for one
 * of its rounds, each response answers with that round's tree. The default
 * manifest reproduces the captured bytes and the measured sizes; the round-2
 * response (1,000 payload bytes) splits into 3 fragments. The scenario layer
 * checks a declared manifest; one that breaks the wire format here is a bug.
 */
export function joinSteps(manifest: ChecksumManifest = DEFAULT_MANIFEST): readonly JoinStep[] {
  let steps = built.get(manifest);
  if (steps === undefined) {
    const problem = manifestProblem(manifest);
    if (problem) throw new Error(`join: manifest ${problem.path}: ${problem.reason}`);
    steps = buildJoin(manifest);
    built.set(manifest, steps);
  }
  return steps;
}

function buildJoin(manifest: ChecksumManifest, timing: JoinTiming = STOCK_JOIN_TIMING): JoinStep[] {
  const steps: JoinStep[] = [
    {
      step: 1,
      from: 'client',
      delayMs: 0,
      after: null,
      // Captures show the stock client's connect request with type byte 0x03 (docs/sources.md 3).
      messages: [
        {
          label: 'Connect',
          type: TYPE_CONNECT_ACK,
          reliable: true,
          ordered: true,
          payload: filledPayload(0xff, 10, 1),
        },
      ],
    },
    {
      step: 2,
      from: 'server',
      delayMs: 0,
      after: 1,
      messages: [
        {
          label: 'ConnectAck',
          type: TYPE_CONNECT_ACK,
          reliable: true,
          ordered: true,
          payload: CAPTURED.connectAckSlot2,
          slotAssignment: true,
        },
        checksum('request', manifest, manifest.rounds[0]),
      ],
    },
    // A 22-byte keepalive with the client's identity; the server's transport echoes it.
    {
      step: 3,
      from: 'client',
      delayMs: timing.keepaliveMs,
      after: 2,
      messages: [
        {
          label: 'Keepalive',
          type: TYPE_DATA,
          reliable: true,
          ordered: true,
          payload: keepalivePayload(clientIdentity(1), PEER_ID_UNASSIGNED),
          identity: true,
        },
      ],
    },
  ];
  let after = 2;
  /** The server's check of the last response, paid before its next message. */
  let checkMs = 0;
  manifest.rounds.forEach((round, i) => {
    if (i > 0) {
      // The server asks the next round as soon as the answer is dispatched (and checked), except
      // request r2, which the capture shows alone (seq 2, no ACK): it waits one server update.
      steps.push({
        step: steps.length + 1,
        from: 'server',
        delayMs: round.round === 2 ? timing.request2Ms : 0,
        ...(checkMs > 0 ? { checkMs } : {}),
        after,
        messages: [checksum('request', manifest, round)],
      });
      after = steps.length;
    }
    // A round the timeline does not time (another manifest's) is answered like round 1.
    const think = timing.clientRoundMs[round.round] ?? timing.clientRoundMs[1] ?? 0;
    checkMs = timing.serverCheckMs[round.round] ?? 0;
    const response: JoinStep = {
      step: steps.length + 1,
      from: 'client',
      delayMs: think,
      after,
      round: round.round,
      messages: [checksum('response', manifest, round)],
    };
    steps.push(round.recursive ? { ...response, hashesTree: true } : response);
    after = steps.length;
  });
  steps.push({
    step: steps.length + 1,
    from: 'server',
    delayMs: 0,
    ...(checkMs > 0 ? { checkMs } : {}),
    after,
    messages: [
      game('0x28', Opcode.JoinMarker, 6, 13),
      game('Settings', Opcode.Settings, 51, 14),
      game('GameInit', Opcode.GameInit, 6, 15),
    ],
  });
  steps.push({
    step: steps.length + 1,
    from: 'client',
    delayMs: timing.newPlayerMs,
    after: steps.length,
    messages: [game('NewPlayerInGame', Opcode.NewPlayerInGame, 7, 16)],
  });
  steps.push({
    step: steps.length + 1,
    from: 'server',
    delayMs: 0,
    after: steps.length,
    // Sizes not in the table; small reliable game messages.
    messages: [game('MissionInit', Opcode.MissionInit, 20, 17), game('DeletePlayerUI', Opcode.DeletePlayerUI, 8, 18)],
  });
  return steps;
}

function checksum(kind: 'request' | 'response', manifest: ChecksumManifest, round: ManifestRound): JoinMessage {
  const label = `Checksum${kind === 'request' ? 'Request' : 'Response'} ${round.round === FINAL_ROUND ? '0xFF' : `r${round.round}`}`;
  const payload = kind === 'request' ? checksumRequestPayload(round) : checksumResponsePayload(manifest, round);
  return captured(label, payload);
}

/** A join message's payload on client `client`'s connection, whose slot is `slot` (null: not yet assigned). */
export function joinPayload(message: JoinMessage, slot: number | null, client = 1): Uint8Array {
  if (message.slotAssignment && slot !== null) return Uint8Array.of(slot);
  if (message.identity) return keepalivePayload(clientIdentity(client), slot ?? PEER_ID_UNASSIGNED);
  return message.payload;
}

/** Ship selection after the join, before StateUpdates start (docs/sources.md J1). */
export const SHIP_SELECTION_MS = 4500;
export const STATE_UPDATES_START_AFTER_SELECTION_MS = 150;
