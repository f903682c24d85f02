// One declaration per transport switch: its values, its default in each preset,
// what it decides, where the fact comes from and the parameters that go with it.
// The switch types, the presets, the scenario schema, `--switch`, the --help text
// and the table of docs/switches.md are all derived from SWITCHES below.
import type { Millis, MillisIn } from '../../core/engine/index.js';
import { PLANTED_BUG_NAMES } from './planted-bugs.js';

/** The presets; each declaration gives its default in both. */
export type PresetName = 'stock' | 'fixed';

interface Described {
  /** One line: what the switch decides. */
  readonly meaning: string;
  /** The item of docs/sources.md the fact comes from, or null where the sources are silent. */
  readonly source: number | null;
  /** Transport parameters (`--set transport.<name>=…`) that go with the switch (keys of DEFAULT_PARAMS). */
  readonly params: readonly string[];
}

/** One of a fixed list of words. */
export interface ChoiceSwitch<V extends string = string> extends Described {
  readonly kind: 'choice';
  readonly values: readonly [V, ...V[]];
  readonly stock: V;
  readonly fixed: V;
}

export interface FlagSwitch extends Described {
  readonly kind: 'flag';
  readonly stock: boolean;
  readonly fixed: boolean;
}

/** A whole number 1..max of `unit`. */
export interface CountSwitch extends Described {
  readonly kind: 'count';
  readonly unit: string;
  readonly max: number;
  readonly stock: number;
  readonly fixed: number;
}

/** A whole number 1..max of `unit`, or null, which means `nullMeans`. */
export interface CountOrNullSwitch extends Described {
  readonly kind: 'countOrNull';
  readonly unit: string;
  readonly max: number;
  readonly nullMeans: string;
  readonly stock: number | null;
  readonly fixed: number | null;
}

/** Milliseconds up to `max`: above 0, or with `zero`, from 0. */
export interface MillisSwitch extends Described {
  readonly kind: 'millis';
  readonly zero: boolean;
  readonly max: number;
  readonly stock: MillisIn;
  readonly fixed: MillisIn;
}

/** Any subset of `values`, each at most once. */
export interface SubsetSwitch<V extends string = string> extends Described {
  readonly kind: 'subset';
  readonly values: readonly [V, ...V[]];
  readonly stock: readonly V[];
  readonly fixed: readonly V[];
}

export type SwitchDeclaration =
  | ChoiceSwitch
  | FlagSwitch
  | CountSwitch
  | CountOrNullSwitch
  | MillisSwitch
  | SubsetSwitch;

/** A switch whose value is an object of switches (`keepalive.*`, `retransmit.*`). */
export interface SwitchGroup<F extends Record<string, SwitchDeclaration> = Record<string, SwitchDeclaration>> {
  readonly kind: 'group';
  readonly fields: F;
}

/** The value a declaration describes. */
export type SwitchValue<D> =
  D extends ChoiceSwitch<infer V>
    ? V
    : D extends FlagSwitch
      ? boolean
      : D extends CountSwitch
        ? number
        : D extends CountOrNullSwitch
          ? number | null
          : D extends MillisSwitch
            ? MillisIn
            : D extends SubsetSwitch<infer V>
              ? readonly V[]
              : D extends SwitchGroup<infer F>
                ? { readonly [K in keyof F]: SwitchValue<F[K]> }
                : never;

type Fields<T> = Omit<T, 'kind' | 'source' | 'params'> & Partial<Pick<Described, 'source' | 'params'>>;
const described = (d: Partial<Pick<Described, 'source' | 'params'>>) => ({ source: null, params: [], ...d });

const choice = <const V extends string>(d: Fields<ChoiceSwitch<V>>): ChoiceSwitch<V> => ({
  kind: 'choice',
  ...d,
  ...described(d),
});
const flag = (d: Fields<FlagSwitch>): FlagSwitch => ({ kind: 'flag', ...d, ...described(d) });
const count = (d: Fields<CountSwitch>): CountSwitch => ({ kind: 'count', ...d, ...described(d) });
const countOrNull = (d: Fields<CountOrNullSwitch>): CountOrNullSwitch => ({
  kind: 'countOrNull',
  ...d,
  ...described(d),
});
const millis = (d: Fields<MillisSwitch>): MillisSwitch => ({ kind: 'millis', ...d, ...described(d) });
const subset = <const V extends string>(d: Fields<SubsetSwitch<V>>): SubsetSwitch<V> => ({
  kind: 'subset',
  ...d,
  ...described(d),
});
const group = <const F extends Record<string, SwitchDeclaration>>(fields: F): SwitchGroup<F> => ({
  kind: 'group',
  fields,
});

const HOUR_MS: Millis = 3_600_000 as Millis;
/** Largest send window: well below half the u16 sequence space (docs/sources.md 1). */
export const MAX_SEND_WINDOW = 16384;
const GATE_OPENERS = ['pass-one', 'retransmits', 'first-sends'] as const;
const KEEPALIVE_PATHS = ['first-send-queue', 'outside-queues'] as const;

/**
 * Every switch, in the order of a mode's JSON (the summary's `settings.switches`).
 * Both presets share the open readings (keepalive … connectAck), so a comparison
 * of stock and fixed isolates the fixes.
 */
export const SWITCHES = {
  ackOutbox: choice({
    values: ['two-pass-gated', 'single-pass-bounded'],
    stock: 'two-pass-gated',
    fixed: 'single-pass-bounded',
    meaning: 'the ACK-outbox: two passes with pass 2 gated (stock), or one pass freeing an entry after N sends',
    params: ['ackPassOneLimit', 'ackFreeAtCount', 'ackResendIntervalMs'],
  }),
  ackSendLimit: count({
    unit: 'sends',
    max: 255,
    stock: 3,
    fixed: 3,
    meaning: 'single-pass-bounded: an ACK entry is freed after this many sends',
    params: ['ackResendIntervalMs'],
  }),
  dedup: choice({
    values: ['linear-scan', 'hashed-index'],
    stock: 'linear-scan',
    fixed: 'hashed-index',
    meaning: 'how the receiver finds an existing ACK entry for a duplicate',
  }),
  ackRefresh: choice({
    values: ['timer-only', 'reset-count'],
    stock: 'timer-only',
    fixed: 'timer-only',
    meaning: 'what a duplicate does to its existing ACK entry: restart its timer, or also reset its send count',
  }),
  fragmentAckCause: choice({
    // The captured fragment ACKs are correct 5-byte ACKs, so stock uses the sender-side matcher cause.
    values: [
      'none',
      'ack-format-mismatch',
      'partial-ack',
      'retransmit-reentry',
      'retransmit-all',
      'matcher-rejects-fragments',
    ],
    stock: 'matcher-rejects-fragments',
    fixed: 'none',
    meaning: 'the candidate cause of the fragment-ACK bug (docs/calibration.md weighs them), or none',
    source: 14,
  }),
  retransmit: group({
    backoff: choice({
      values: ['fixed', 'linear', 'exponential'],
      stock: 'fixed',
      fixed: 'fixed',
      meaning: 'how the retransmit interval grows',
      source: 11,
      params: ['maxMessageAgeMs'],
    }),
    baseMs: millis({ zero: false, max: HOUR_MS, stock: 2000, fixed: 2000, meaning: 'the first interval', source: 11 }),
    stepMs: millis({ zero: true, max: HOUR_MS, stock: 1000, fixed: 1000, meaning: 'linear: added per retransmit' }),
    capMs: millis({
      zero: false,
      max: HOUR_MS,
      stock: 5000,
      fixed: 5000,
      meaning: 'linear and exponential: the interval never exceeds this',
    }),
    retryLimit: countOrNull({
      unit: 'retries',
      max: 1_000_000,
      nullMeans: 'no limit',
      stock: null,
      fixed: null,
      meaning: 'retransmits before the sender gives up on a message',
      source: 11,
    }),
  }),
  closePolicy: choice({
    values: ['immediate', 'drain'],
    stock: 'immediate',
    fixed: 'drain',
    meaning: 'graceful disconnect: close once the Disconnect is ACKed, or first drain both retransmit queues',
    source: 21,
    params: ['disconnectedPeerLingerMs', 'peerTimeoutMs'],
  }),
  sendWindow: countOrNull({
    unit: 'seqs',
    max: MAX_SEND_WINDOW,
    nullMeans: 'no window',
    stock: null,
    fixed: 8192,
    meaning: 'most seqs per category outstanding (sent, not ACKed), keeping the u16 half-window from aliasing',
    source: 1,
  }),
  onGiveUp: choice({
    values: ['drop', 'disconnect'],
    stock: 'drop',
    fixed: 'disconnect',
    meaning: 'retry, age or queue limit reached: drop that message, or end the connection',
    source: 11,
  }),
  plantedBug: choice({
    // Test-only bugs that the swarm and `bcsim conform` must catch; never part of a preset (switches.ts lists them).
    values: PLANTED_BUG_NAMES,
    stock: 'none',
    fixed: 'none',
    meaning: 'test-only: a deliberate bug the swarm or a conform case must catch (docs/conform.md)',
  }),
  keepalive: group({
    message: choice({
      values: ['type-0x00', 'type-0x02'],
      stock: 'type-0x00',
      fixed: 'type-0x00',
      meaning: 'the idle keepalive: the captured 22-byte identity message, or the type-0x02 constructor',
      source: 3,
      params: ['keepaliveIdleMs'],
    }),
    reliable: flag({
      stock: true,
      fixed: true,
      meaning: 'whether the keepalive is reliable (the captured one is ACKed)',
      source: 2,
    }),
    path: choice({
      values: KEEPALIVE_PATHS,
      stock: 'first-send-queue',
      fixed: 'first-send-queue',
      meaning: 'a first send through the queues (opens the pass-2 gate), or written after pass 2',
      source: 16,
    }),
    senders: choice({
      values: ['both', 'client', 'server', 'none'],
      stock: 'both',
      fixed: 'both',
      meaning: 'the roles that send an idle keepalive',
    }),
    serverEcho: flag({
      stock: true,
      fixed: true,
      meaning: 'the server answers a delivered type-0x00 identity message with its own',
    }),
    echoPath: choice({
      values: KEEPALIVE_PATHS,
      stock: 'outside-queues',
      fixed: 'outside-queues',
      meaning: "the echo's own path through the queues",
    }),
    idleCounts: choice({
      values: ['any-datagram', 'data-messages', 'first-sends', 'reliable-messages'],
      stock: 'any-datagram',
      fixed: 'any-datagram',
      meaning: 'what resets "nothing sent for 5 s"',
      params: ['keepaliveIdleMs'],
    }),
  }),
  gateOpeners: subset({
    values: GATE_OPENERS,
    stock: GATE_OPENERS,
    fixed: GATE_OPENERS,
    meaning: 'two-pass-gated: which of steps 1-3 open the pass-2 gate',
    source: 16,
  }),
  gateScope: choice({
    values: ['datagram', 'update'],
    stock: 'datagram',
    fixed: 'datagram',
    meaning: 'two-pass-gated: the gate is judged per datagram or per update',
    source: 16,
    params: ['datagramsPerUpdate'],
  }),
  messageLifetime: choice({
    values: ['session', 'peer-timeout'],
    stock: 'peer-timeout',
    fixed: 'peer-timeout',
    meaning: 'an unACKed message is kept until its age passes the peer timeout, or all session',
    source: 11,
    params: ['peerTimeoutMs', 'maxMessageAgeMs'],
  }),
  duplicateAckTimer: choice({
    values: ['due-now', 'restart'],
    stock: 'due-now',
    fixed: 'due-now',
    meaning: "a duplicate makes its ACK entry due at the next update, or restarts the entry's timer",
    params: ['ackResendIntervalMs'],
  }),
  wrapReceive: choice({
    values: ['first-wins', 'last-wins', 'reject'],
    stock: 'first-wins',
    fixed: 'first-wins',
    meaning: 'a message at a seq whose receive slot holds another: keep the held one, replace it, or refuse it',
  }),
  receiveTiming: choice({
    values: ['in-update', 'on-arrival'],
    stock: 'in-update',
    fixed: 'in-update',
    meaning: "datagrams are read in the receiver's next update, after its send step, or on arrival",
    source: 16,
  }),
  bootPayload: choice({
    values: ['slot', 'slot-reason'],
    stock: 'slot',
    fixed: 'slot',
    meaning: 'the Boot sent when a peer times out: the slot alone, or the slot and a reason byte',
    source: 19,
  }),
  ackCarriage: choice({
    values: ['when-due', 'every-datagram', 'every-datagram-all'],
    stock: 'when-due',
    fixed: 'when-due',
    meaning: 'which datagrams carry an ACK entry: only one built when it is due, or every datagram sent anyway',
    params: ['ackResendIntervalMs'],
  }),
  connectAck: choice({
    values: ['none', 'after-reply'],
    stock: 'after-reply',
    fixed: 'after-reply',
    meaning: "the server ACKs a client's Connect one update after its connect reply, or never",
    source: 2,
  }),
} as const;
