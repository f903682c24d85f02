// The join's timeline (docs/sources.md 33) read off the datagrams a run sent, and
// judged step by step against the captured one: each step within ±15 % or ±10 ms
// of its measured gap, whichever is larger, and Connect to Settings within ±10 %.
import { TYPE_CONNECT_ACK, TYPE_GAME } from '../../core/codec/index.js';
import type { DataMessage, Located } from '../../core/codec/index.js';
import { msToUs, secondsToUs, usToMs } from '../../core/engine/index.js';
import { FINAL_ROUND, MEASURED_JOIN_TIMELINE, Opcode } from '../../model/traffic/index.js';
import type { JoinEvent } from '../../model/traffic/index.js';
import { SendNote } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';
import type { Wire } from './wire-facts.js';

/** A step's tolerance: ±15 % of its measured gap or ±10 ms, whichever is larger. */
const STEP_SHARE = 0.15;
const STEP_FLOOR_MS = 10;
/** Connect to Settings: ±10 %. */
const TOTAL_SHARE = 0.1;

function stepToleranceMs(measuredGapMs: number): number {
  return Math.max(STEP_SHARE * measuredGapMs, STEP_FLOOR_MS);
}

type Match = (m: Located) => boolean;
const game = (m: Located): m is Located<DataMessage> => m.type === TYPE_GAME;
const request =
  (round: number): Match =>
  (m) =>
    game(m) && !m.fragment && m.payload[0] === Opcode.ChecksumRequest && m.payload[1] === round;
/** A response, or the first fragment of a fragmented one (its chunk starts the payload). */
const response =
  (round: number): Match =>
  (m) =>
    game(m) && (!m.fragment || m.fragIndex === 0) && m.payload[0] === Opcode.ChecksumResponse && m.payload[1] === round;

/** Which side sends each event, and the message that marks it. */
const MARKERS: Record<JoinEvent, { from: Role; is: Match }> = {
  connect: { from: 'client', is: (m) => m.type === TYPE_CONNECT_ACK },
  connectReply: { from: 'server', is: request(0) },
  response0: { from: 'client', is: response(0) },
  request1: { from: 'server', is: request(1) },
  response1: { from: 'client', is: response(1) },
  request2: { from: 'server', is: request(2) },
  response2: { from: 'client', is: response(2) },
  request3: { from: 'server', is: request(3) },
  response3: { from: 'client', is: response(3) },
  requestFF: { from: 'server', is: request(FINAL_ROUND) },
  responseFF: { from: 'client', is: response(FINAL_ROUND) },
  settings: { from: 'server', is: (m) => game(m) && !m.fragment && m.payload[0] === Opcode.Settings },
};

/** Each event's time in ms from the Connect: the first send of its message; null if never sent. */
export function joinTimes(sent: readonly Wire[]): Record<JoinEvent, number | null> {
  const atS = new Map<JoinEvent, number>();
  for (const d of sent) {
    for (const entry of MEASURED_JOIN_TIMELINE) {
      if (atS.has(entry.event)) continue;
      const marker = MARKERS[entry.event];
      if (d.from !== marker.from) continue;
      if (d.messages.some((m, i) => d.notes[i] === SendNote.FirstSend && marker.is(m))) atS.set(entry.event, d.t);
    }
  }
  const connectS = atS.get('connect');
  const out = {} as Record<JoinEvent, number | null>;
  for (const { event } of MEASURED_JOIN_TIMELINE) {
    const t = atS.get(event);
    out[event] = t === undefined || connectS === undefined ? null : usToMs(secondsToUs(t - connectS));
  }
  return out;
}

export interface StepVerdict {
  readonly event: JoinEvent;
  readonly label: string;
  readonly measuredGapMs: number;
  /** The model's gap from the previous event; null when either was never sent. */
  readonly gapMs: number | null;
  readonly toleranceMs: number;
  readonly ok: boolean;
}

export interface TimelineVerdict {
  readonly steps: readonly StepVerdict[];
  readonly measuredTotalMs: number;
  readonly totalMs: number | null;
  readonly totalOk: boolean;
}

/** Every timed step of the measured join, and Connect to Settings, judged. */
export function judgeTimeline(times: Record<JoinEvent, number | null>): TimelineVerdict {
  const steps: StepVerdict[] = [];
  for (let i = 1; i < MEASURED_JOIN_TIMELINE.length; i++) {
    const prev = MEASURED_JOIN_TIMELINE[i - 1];
    const entry = MEASURED_JOIN_TIMELINE[i];
    const a = times[prev.event];
    const b = times[entry.event];
    const measuredGapMs = entry.atMs - prev.atMs;
    const gapMs = a === null || b === null ? null : usToMs(msToUs(b - a));
    const toleranceMs = stepToleranceMs(measuredGapMs);
    steps.push({
      event: entry.event,
      label: entry.label,
      measuredGapMs,
      gapMs,
      toleranceMs,
      ok: gapMs !== null && Math.abs(gapMs - measuredGapMs) <= toleranceMs,
    });
  }
  const last = MEASURED_JOIN_TIMELINE[MEASURED_JOIN_TIMELINE.length - 1];
  const totalMs = times[last.event];
  return {
    steps,
    measuredTotalMs: last.atMs,
    totalMs,
    totalOk: totalMs !== null && Math.abs(totalMs - last.atMs) <= TOTAL_SHARE * last.atMs,
  };
}

/** "+670" for a step, "+?" when it never happened. */
export function gapText(step: StepVerdict): string {
  return step.gapMs === null ? '+?' : `+${Math.round(step.gapMs)}`;
}
