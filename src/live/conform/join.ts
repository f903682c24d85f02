// The join as `bcsim conform` plays it: connect, the keepalive, every checksum
// round the server asks (answered from the manifest, docs/sources.md 31), then
// NewPlayerInGame once the server sent its settings. Each step waits for the
// server's real message; a case may take over any round's answer to apply its
// fault. The join counts as complete when the server sends MissionInit (the
// last server step of the measured join, docs/sources.md J1).
import { TYPE_CONNECT_ACK, TYPE_DATA, TYPE_GAME } from '../../core/codec/index.js';
import { msToSeconds } from '../../core/engine/index.js';
import type { DataMessage, Message } from '../../core/codec/index.js';
import {
  FINAL_ROUND,
  Opcode,
  checksumAnswer,
  DEFAULT_MANIFEST,
  answerHashesText,
  findRound,
  parseChecksumResponse,
  joinSteps,
  parseChecksumRequest,
  roundLabel,
} from '../../model/traffic/index.js';
import type { ChecksumManifest, ChecksumRequest } from '../../model/traffic/index.js';
import { DEFAULT_PARAMS, keepalivePayload } from '../../model/transport/index.js';
import type { ConformClient, FaultKind, ServerMessage } from './client.js';
import { isData, opcodeOf } from './client.js';
import { bootsUs, describeEnd, refusalLine } from './session-end.js';
import type { Refusal } from './session-end.js';

/** Payload bytes per fragment: the transport's stock default (docs/sources.md 6). */
export const FRAGMENT_CHUNK_BYTES = DEFAULT_PARAMS.fragmentChunkBytes;
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
  /** The server removed us right after a checksum answer of ours: it refused the answer. */
  refusal: Refusal | null;
}

export function newProgress(): JoinProgress {
  return { connectReply: null, requests: [], settings: null, missionInit: null, stopped: null, refusal: null };
}

/** Is this checksum request the one of `round`? */
export function requestIsRound(m: ServerMessage, round: number): boolean {
  return isData(m.message) && m.message.payload.length > 1 && m.message.payload[1] === round;
}

/**
 * The server's checksum request of `round` (already here, or within a join step
 * after `since`). When it does not come, the join is stopped as answerRounds stops
 * it: a refusal of `answered`, our last answered request, when the server ended the session.
 */
export async function awaitRequest(
  client: ConformClient,
  manifest: ChecksumManifest,
  progress: JoinProgress,
  round: number,
  options: { timings?: JoinTimings; since?: number; answered?: ServerMessage } = {},
): Promise<ServerMessage | null> {
  const timings = options.timings ?? DEFAULT_JOIN_TIMINGS;
  const request = await client.waitFor(
    (m) => isChecksumRequest(m) && requestIsRound(m, round),
    timings.stepMs,
    options.since ?? 0,
  );
  if (request === null) await noNextRequest(client, manifest, progress, timings, options.answered);
  return request;
}

export function isChecksumRequest(m: ServerMessage): boolean {
  return isData(m.message) && m.message.reliable && opcodeOf(m.message) === Opcode.ChecksumRequest;
}

/** A stock client re-sends an unanswered Connect at the retransmit interval (docs/sources.md 11) … */
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

/** The stock keepalive: type 0x00, reliable and ordered, [slot][IPv4][UTF-16LE name] (docs/sources.md 12, 26). */
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

/**
 * Sends a reliable game payload the way a stock client does: whole, or fragments
 * each in its own datagram. With a fault, each datagram is marked with it, and
 * its message (or fragment) is the proof that the server read it.
 */
export function sendGame(client: ConformClient, payload: Uint8Array, note: string, fault?: FaultKind): DataMessage[] {
  const mark = (m: DataMessage) => (fault === undefined ? {} : { fault, proof: [m] });
  if (payload.length <= FRAGMENT_CHUNK_BYTES) {
    const message = client.reliable(TYPE_GAME, payload);
    client.send([message], note, mark(message));
    return [message];
  }
  const pieces = client.fragments(payload, FRAGMENT_CHUNK_BYTES);
  pieces.forEach((piece, i) => client.send([piece], `${note} fragment ${i}`, mark(piece)));
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
      await noNextRequest(client, manifest, progress, timings);
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

/** How long a keepalive waits for its ACK when the join asks whether we are still served. */
const ALIVE_PROBE_MS = 1500;

/**
 * The server asked no further round. After an answer of ours, a Boot, its
 * Disconnect or silence (a keepalive unACKed) means it refused that answer.
 */
async function noNextRequest(
  client: ConformClient,
  manifest: ChecksumManifest,
  progress: JoinProgress,
  timings: JoinTimings,
  last = progress.requests.at(-1),
): Promise<void> {
  const parsed = last !== undefined && isData(last.message) ? parseChecksumRequest(last.message.payload) : null;
  const end =
    client.ended ??
    (last === undefined ? null : await client.probeAlive(keepaliveMessage(client) as DataMessage, ALIVE_PROBE_MS));
  if (end === null || parsed === null || !parsed.ok) {
    progress.stopped = end
      ? `the server ended the session: ${describeEnd(end)}`
      : `no checksum request within ${timings.stepMs} ms after round ${lastRound(progress)} (the server still ACKs our keepalive)`;
    return;
  }
  progress.refusal = {
    round: roundLabel(parsed.value.round),
    sent: answerHashes(manifest, parsed.value),
    did: describeEnd(end),
  };
  progress.stopped = refusalLine(progress.refusal);
  client.refusal ??= progress.refusal;
}

/** "ref 0x…, dir 0x…, App.pyc name 0x… content 0x…; bcsim's default, …": our answer to `request`, and whose hashes. */
function answerHashes(manifest: ChecksumManifest, request: ChecksumRequest): string {
  const ours = parseChecksumResponse(checksumAnswer(manifest, request));
  const round = findRound(manifest, request.round);
  const hashes = ours.ok ? answerHashesText(ours.value, round?.tree ?? null) : 'an answer bcsim cannot read back';
  // A round equal to the default's is bcsim's own: the captured answer (round 0) or a stand-in.
  const own = round === null || JSON.stringify(findRound(DEFAULT_MANIFEST, request.round)) === JSON.stringify(round);
  const origin = !own
    ? 'from the manifest given'
    : request.round === 0
      ? "bcsim's default, the captured stock client's answer"
      : "bcsim's stand-in hashes";
  return `${hashes}; ${origin}`;
}

function lastRound(progress: JoinProgress): string {
  const last = progress.requests.at(-1);
  if (last === undefined || !isData(last.message)) return 'none';
  const parsed = parseChecksumRequest(last.message.payload);
  return parsed.ok ? roundLabel(parsed.value.round) : '?';
}

/**
 * Connect, keepalive, and the join until the request of `round` arrives (every round
 * up to `answeredBefore` answered); whether its ACK is withheld is the client's `withhold`.
 * Null when the join stopped first (`progress.stopped` says why).
 */
export async function joinUntilRequest(
  client: ConformClient,
  manifest: ChecksumManifest,
  progress: JoinProgress,
  round: number,
  timings: JoinTimings,
  answeredBefore = round - 1,
): Promise<ServerMessage | null> {
  if (!(await connect(client, progress, timings))) return null;
  client.send([keepaliveMessage(client)], 'Keepalive');
  if (answeredBefore >= 0 && !(await answerRounds(client, manifest, progress, { untilRound: answeredBefore, timings })))
    return null;
  return awaitRequest(client, manifest, progress, round, { timings });
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
