// Game payload bytes. The first byte is the game opcode; captured payloads are
// used verbatim where docs/sources.md R1–R3 have them, and the rest is a
// deterministic filler so traces stay byte-identical run to run.
import { parseHex } from '../../core/codec/index.js';

/** Game opcodes carried inside type 0x32 (names from the capture analyses). */
export const Opcode = {
  ChecksumRequest: 0x20,
  ChecksumResponse: 0x21,
  StateUpdate: 0x1c,
  StartFiring: 0x07,
  StopFiring: 0x08,
  TorpedoFire: 0x19,
  BeamFire: 0x1a,
  CollisionEffect: 0x15,
  Explosion: 0x0f,
  SubsysStatus: 0x13,
  PythonEvent: 0x06,
  Score: 0x36,
  Chat: 0x2c,
  ObjCreate: 0x03,
  Settings: 0x00,
  GameInit: 0x01,
  NewPlayerInGame: 0x2a,
  MissionInit: 0x35,
  DeletePlayerUI: 0x17,
  JoinMarker: 0x28,
  /** A game-level kick: the opcode, then a reason byte, as reimplementations send it (the transport Boot is type 0x04, docs/sources.md 19). */
  BootPlayer: 0x04,
} as const;

/** A payload of `bytes` bytes starting with `opcode`, filled from `salt`. */
export function filledPayload(opcode: number, bytes: number, salt: number): Uint8Array {
  const payload = new Uint8Array(Math.max(1, bytes));
  payload[0] = opcode;
  let x = (salt * 2654435761) >>> 0;
  for (let i = 1; i < payload.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    payload[i] = x >>> 24;
  }
  return payload;
}

/**
 * Covers the largest generated payload (a 4,096-byte StateUpdate, the schema's
 * maximum, less its 3 header bytes). filledPayload's bytes do not depend on the length,
 * so a longer template keeps every shorter payload byte-identical.
 */
const TEMPLATE_BYTES = 4096;
const templates: Array<Uint8Array[] | undefined> = [];
/** Views already cut from the templates, by opcode * TEMPLATES_PER_OPCODE + template, then length. */
const views: Array<Array<Uint8Array | undefined> | undefined> = [];
const TEMPLATES_PER_OPCODE = 16;
/** Payload salts of one opcode start at opcode x this (a seed spacing, not a unit). */
const SALT_STRIDE = 1000;

/**
 * Like filledPayload, but a read-only view into one of a few shared buffers per
 * opcode: high-rate traffic (StateUpdates, game events) allocates no payload
 * bytes. Payloads are never mutated once queued, so sharing is safe. Always
 * exactly max(1, bytes) long; a library caller asking for more than a template
 * gets a fresh buffer with the same bytes.
 */
export function templatePayload(opcode: number, bytes: number, salt: number): Uint8Array {
  const length = Math.max(1, bytes);
  const template = salt % TEMPLATES_PER_OPCODE;
  if (length > TEMPLATE_BYTES) return filledPayload(opcode, length, opcode * SALT_STRIDE + template);
  // A view per (template, length) is cut once: ~100 StateUpdates/s would otherwise
  // allocate ~100 views/s for a few dozen distinct lengths.
  let cut = views[opcode * TEMPLATES_PER_OPCODE + template];
  if (cut === undefined) {
    cut = [];
    views[opcode * TEMPLATES_PER_OPCODE + template] = cut;
  }
  const view = cut[length];
  if (view !== undefined) return view;
  const made = templatesOf(opcode)[template].subarray(0, length);
  cut[length] = made;
  return made;
}

/**
 * The templates of one opcode, made on first use. A function of its own: a closure over
 * `opcode` inside templatePayload made V8 allocate a context on every call (~40 bytes
 * per StateUpdate, 19 MB per simulated hour of long-session).
 */
function templatesOf(opcode: number): Uint8Array[] {
  let set = templates[opcode];
  if (set === undefined) {
    set = Array.from({ length: TEMPLATES_PER_OPCODE }, (_, i) =>
      filledPayload(opcode, TEMPLATE_BYTES, opcode * SALT_STRIDE + i),
    );
    templates[opcode] = set;
  }
  return set;
}

/** Hex written in this file; a typo is a programming error, caught at load. */
function hexBytes(text: string): Uint8Array {
  const parsed = parseHex(text);
  if (!parsed.ok) throw new Error(`payloads: bad hex at ${parsed.offset}: ${parsed.reason}`);
  return parsed.bytes;
}

/** Captured payloads (after the seq field), from docs/sources.md R1–R3. */
export const CAPTURED = {
  /** Server -> client checksum request r0 (message length 27). */
  checksumRequestR0: hexBytes('20 00 08 00 73 63 72 69 70 74 73 2F 07 00 41 70 70 2E 70 79 63 20'),
  /** Client -> server checksum response r0 (message length 26). */
  checksumResponseR0: hexBytes('21 00 43 E2 0C 7E 2F CB AF 4D 01 00 77 B6 3E 37 68 A7 A0 F8 00'),
  /** Server -> client checksum request r2 (message length 30). */
  checksumRequestR2: hexBytes('20 02 0D 00 73 63 72 69 70 74 73 2F 73 68 69 70 73 05 00 2A 2E 70 79 63 21'),
  /** Server -> client ConnectAck slot assignment (type 0x03, message length 6). */
  connectAckSlot2: hexBytes('02'),
} as const;
