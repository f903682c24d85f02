// The join as `bcsim conform` plays it: connect, the keepalive, every checksum
// round the server asks (answered from the manifest, DECISIONS.md 31), then
// NewPlayerInGame once the server sent its settings. Each step waits for the
// server's real message; a case may take over any round's answer to apply its
// fault. The join counts as complete when the server sends MissionInit (the
// last server step of the measured join, DECISIONS.md "Join sequence").
import { TYPE_BOOT, TYPE_CONNECT_ACK, TYPE_DATA, TYPE_GAME } from '../../core/codec/index.js';
import { msToSeconds } from '../../core/engine/index.js';
import type { Message } from '../../core/codec/index.js';
import {
  FINAL_ROUND,
  Opcode,
  checksumAnswer,
  joinSteps,
  parseChecksumRequest,
  roundLabel,
} from '../../model/traffic/index.js';
import type { ChecksumManifest } from '../../model/traffic/index.js';
import { keepalivePayload } from '../../model/transport/index.js';
import type { ConformClient, ServerMessage } from './client.js';
import { isData, opcodeOf } from './client.js';

/** Payload bytes per fragment: the stock default (DECISIONS.md 6). */
export const FRAGMENT_CHUNK_BYTES = 405;
/** NewPlayerInGame as clients send it: the opcode and a bit-packed boolean. */
const NEW_PLAYER_IN_GAME = Uint8Array.of(Opcode.NewPlayerInGame, 0x20);
/** The player name of every conform client: five letters, so the keepalive is the captured 22 bytes. */
const CONFORM_PLAYER = 'bcsim';

export interface JoinTimings {
  /** How long to wait for each of the server's join steps. */
  readonly stepMs: number;
}

const DEFAULT_JOIN_TIMINGS: JoinTimings = { stepMs: 5000 };

/** What a case may do instead of the plain answer to a round: send the bytes its own way. */
export type RoundAnswer = (round: number, payload: Uint8Array, request: ServerMessage) => Promise<void> | void;

export interface JoinProgress {
  connectReply: ServerMessage | null;
  /** The checksum requests the server sent, in order (a request re-sent with its seq counts once). */
  readonly requests: ServerMessage[];
  settings: ServerMessage | null;
  missionInit: ServerMessage | null;
  /** Why the join stopped, when it did not complete. */
  stopped: string | null;
}

export function newProgress(): JoinProgress {
  return { connectReply: null, requests: [], settings: null, missionInit: null, stopped: null };
}

/** A transport Boot (type 0x04, DECISIONS.md 19) or a game BootPlayer (opcode 0x04 in type 0x32). */
export function isBoot(m: ServerMessage): boolean {
  return (
    isData(m.message) &&
    (m.message.type === TYPE_BOOT || (m.message.type === TYPE_GAME && opcodeOf(m.message) === Opcode.BootPlayer))
  );
}

/**
 * A Boot that removes `client`: a game BootPlayer, or a transport Boot naming
 * its slot. A transport Boot naming another slot tells us that player is gone
 * (DECISIONS.md 19: the server Boots a timed-out peer to every other peer).
 */
export function bootsUs(client: ConformClient, m: ServerMessage): boolean {
  if (!isBoot(m) || !isData(m.message)) return false;
  return m.message.type !== TYPE_BOOT || client.slot === null || m.message.payload[0] === client.slot;
}

export function isChecksumRequest(m: ServerMessage): boolean {
  return isData(m.message) && m.message.reliable && opcodeOf(m.message) === Opcode.ChecksumRequest;
}

/** A stock client re-sends an unanswered Connect at the retransmit interval (DECISIONS.md 11) … */
const CONNECT_RESEND_MS = 2000;
/** … for two join steps: a full server may free a player slot meanwhile. */
const CONNECT_STEPS = 2;

/**
 * Sends the Connect (a reliable low-type 0x03 message, as captured), re-sent
 * every 2 s as a stock client does, and waits for the connect reply.
 */
export async function connect(
  client: ConformClient,
  progress: JoinProgress,
  timings = DEFAULT_JOIN_TIMINGS,
): Promise<boolean> {
  const connectMessage = client.reliable(TYPE_CONNECT_ACK, joinSteps()[0].messages[0].payload, true);
  const since = client.now;
  const isReply = (m: ServerMessage) =>
    isData(m.message) && m.message.type === TYPE_CONNECT_ACK && m.message.payload.length > 0;
  let reply: ServerMessage | null = null;
  const windowMs = CONNECT_STEPS * timings.stepMs;
  let sends = 0;
  for (; reply === null && sends * CONNECT_RESEND_MS < windowMs; sends++) {
    client.send([connectMessage], sends === 0 ? 'Connect' : 'Connect re-sent');
    reply = await client.waitFor(
      (m) => isReply(m) || bootsUs(client, m),
      Math.min(CONNECT_RESEND_MS, windowMs - sends * CONNECT_RESEND_MS),
      since,
    );
  }
  if (reply === null || bootsUs(client, reply)) {
    progress.stopped =
      reply === null
        ? `no connect reply within ${windowMs} ms (Connect sent ${sends} times)`
        : `the server refused our Connect with a Boot (${[...(reply.message as { payload: Uint8Array }).payload].join(' ')})`;
    return false;
  }
  progress.connectReply = reply;
  if (isData(reply.message)) client.slot = reply.message.payload[0];
  return true;
}

/** The stock keepalive: type 0x00, reliable and ordered, [slot][IPv4][UTF-16LE name] (DECISIONS.md 12, 26). */
export function keepaliveMessage(client: ConformClient): Message {
  const octets = client.local.split(':')[0].split('.').map(Number);
  const address = (octets.length === 4 && octets.every((o) => o >= 0 && o <= 255) ? octets : [127, 0, 0, 1]) as [
    number,
    number,
    number,
    number,
  ];
  return client.reliable(TYPE_DATA, keepalivePayload({ address, name: CONFORM_PLAYER }, client.slot ?? 0xff), true);
}

/** Sends a reliable game payload the way a stock client does: whole, or fragments each in its own datagram. */
export function sendGame(client: ConformClient, payload: Uint8Array, note: string): Message[] {
  if (payload.length <= FRAGMENT_CHUNK_BYTES) {
    const message = client.reliable(TYPE_GAME, payload);
    client.send([message], note);
    return [message];
  }
  const pieces = client.fragments(payload, FRAGMENT_CHUNK_BYTES);
  pieces.forEach((piece, i) => client.send([piece], `${note} fragment ${i}`));
  return pieces;
}

/**
 * Answers checksum requests until round `untilRound` is answered (0xFF: all of
 * them). `answer` replaces the plain answer for the rounds it is given.
 */
export async function answerRounds(
  client: ConformClient,
  manifest: ChecksumManifest,
  progress: JoinProgress,
  options: { untilRound?: number; answer?: RoundAnswer; timings?: JoinTimings } = {},
): Promise<boolean> {
  const timings = options.timings ?? DEFAULT_JOIN_TIMINGS;
  const untilRound = options.untilRound ?? FINAL_ROUND;
  for (;;) {
    const answered = new Set(progress.requests.map((r) => (isData(r.message) ? r.message.seq : -1)));
    const request = await client.waitFor(
      (m) => isChecksumRequest(m) && !answered.has((m.message as { seq: number | null }).seq),
      timings.stepMs,
    );
    if (request === null) {
      const boot = client.serverMessages().find((m) => bootsUs(client, m));
      progress.stopped = boot
        ? `the server sent a Boot at t=${msToSeconds(boot.timeMs).toFixed(3)} s`
        : `no checksum request within ${timings.stepMs} ms after round ${lastRound(progress)}`;
      return false;
    }
    progress.requests.push(request);
    const parsed = parseChecksumRequest(isData(request.message) ? request.message.payload : new Uint8Array(0));
    if (!parsed.ok) {
      progress.stopped = `the server's checksum request does not parse: offset ${parsed.error.offset}: ${parsed.error.reason}`;
      return false;
    }
    const payload = checksumAnswer(manifest, parsed.value);
    if (options.answer) await options.answer(parsed.value.round, payload, request);
    else sendGame(client, payload, `ChecksumResponse ${roundLabel(parsed.value.round)}`);
    if (parsed.value.round === untilRound) return true;
    if (parsed.value.round === FINAL_ROUND) {
      progress.stopped = `the server asked round 0xFF before round ${roundLabel(untilRound)}`;
      return false;
    }
  }
}

function lastRound(progress: JoinProgress): string {
  const last = progress.requests.at(-1);
  if (last === undefined || !isData(last.message)) return 'none';
  const parsed = parseChecksumRequest(last.message.payload);
  return parsed.ok ? roundLabel(parsed.value.round) : '?';
}

/** After round 0xFF: waits for the settings, says NewPlayerInGame, waits for MissionInit. */
export async function enterGame(
  client: ConformClient,
  progress: JoinProgress,
  timings = DEFAULT_JOIN_TIMINGS,
): Promise<boolean> {
  const since = progress.requests.at(-1)?.timeMs ?? 0;
  const settings = await client.waitFor(
    (m) => bootsUs(client, m) || opcodeOf(m.message) === Opcode.GameInit || opcodeOf(m.message) === Opcode.Settings,
    timings.stepMs,
    since,
  );
  if (settings === null || bootsUs(client, settings)) {
    progress.stopped = settings
      ? `the server sent a Boot at t=${msToSeconds(settings.timeMs).toFixed(3)} s instead of its settings`
      : `no Settings or GameInit within ${timings.stepMs} ms of round 0xFF`;
    return false;
  }
  progress.settings = settings;
  const sent = client.now;
  client.send([client.reliable(TYPE_GAME, NEW_PLAYER_IN_GAME)], 'NewPlayerInGame');
  const mission = await client.waitFor(
    (m) => bootsUs(client, m) || opcodeOf(m.message) === Opcode.MissionInit,
    timings.stepMs,
    sent,
  );
  if (mission === null || bootsUs(client, mission)) {
    progress.stopped = mission
      ? `the server sent a Boot after NewPlayerInGame`
      : `no MissionInit within ${timings.stepMs} ms of NewPlayerInGame`;
    return false;
  }
  progress.missionInit = mission;
  return true;
}

/** The whole join, plain: connect, keepalive, every round, then into the game. */
export async function join(
  client: ConformClient,
  manifest: ChecksumManifest,
  progress = newProgress(),
  timings = DEFAULT_JOIN_TIMINGS,
): Promise<JoinProgress> {
  if (!(await connect(client, progress, timings))) return progress;
  client.send([keepaliveMessage(client)], 'Keepalive');
  if (!(await answerRounds(client, manifest, progress, { timings }))) return progress;
  await enterGame(client, progress, timings);
  return progress;
}

export function joined(progress: JoinProgress): boolean {
  return progress.missionInit !== null;
}
