// Behaviour switches of the R-Type ACK scheme: one per defect of the public code
// against its document (docs/sources.md X1, 24),
// plus the resend timer the repaired design adds. Logic reads these fields only;
// a preset is nothing but a value of this shape.

export interface RtypeSwitches {
  /** `sendPacket` resets the header's ACK field to 0 before every send: the id never reaches the wire. */
  readonly ackZeroedOnSend: boolean;
  /** `for (auto tmp : _users) tmp._ackList.emplace_back(…)`: entries go onto copies, the real lists stay empty. */
  readonly pendingListsOnCopies: boolean;
  /** The game loop holds a copy of the user list taken before anyone connected, so it sees no user. */
  readonly loopHoldsStaleCopies: boolean;
  /** Pending lists hold the queue tick while confirmations carry ACK ids. */
  readonly pendingHoldsTicks: boolean;
  /** The 500 / 1500 thresholds are compared with raw 30 Hz ticks (16.7 s / 50 s), not milliseconds. */
  readonly thresholdsInTicks: boolean;
  /** Once past the threshold, the packet is re-sent every tick, to every client. */
  readonly resendEveryTickToAll: boolean;
  /** At expiry the store entry is dropped silently: pending-list entries stay, nobody is told. */
  readonly silentDropAtExpiry: boolean;
  /**
   * The client confirms in the `ack` field of its next ordinary UDP datagram, keeping only
   * its last non-zero id, instead of over the TCP side channel (rtype-ack-system.md §3).
   */
  readonly confirmViaNextUdp: boolean;
  /** The receive-side clear has no `break`: one client's confirmation clears the id for every user. */
  readonly clearWithoutBreak: boolean;
  /** A zero-length registration is parsed with a header never filled in (the previous datagram's). */
  readonly registrationReadsStaleHeader: boolean;
  /**
   * Not a defect. 'scan': every tick, the document's loop over users × pending list × store.
   * 'per-packet': each (packet, user) entry carries its own resend timer (the repaired design).
   */
  readonly resendTimer: 'scan' | 'per-packet';
}

export type DefectSwitch = Exclude<keyof RtypeSwitches, 'resendTimer'>;

/** The defects, in the order of the `reproduce rtype` table's rows. */
export const DEFECT_SWITCHES: readonly DefectSwitch[] = [
  'ackZeroedOnSend',
  'pendingListsOnCopies',
  'loopHoldsStaleCopies',
  'pendingHoldsTicks',
  'thresholdsInTicks',
  'resendEveryTickToAll',
  'silentDropAtExpiry',
  'confirmViaNextUdp',
  'clearWithoutBreak',
  'registrationReadsStaleHeader',
];

/** One line per defect, for tables and help texts. */
export const DEFECT_DESCRIPTIONS: Readonly<Record<DefectSwitch, string>> = {
  ackZeroedOnSend: 'ACK field reset to 0 before every send',
  pendingListsOnCopies: 'pending lists updated on copies',
  loopHoldsStaleCopies: 'game loop holds a user list copied before anyone connected',
  pendingHoldsTicks: 'pending lists hold ticks, confirmations carry ids',
  thresholdsInTicks: 'thresholds in raw ticks (16.7 s / 50 s) instead of ms',
  resendEveryTickToAll: 'resend every tick past the threshold, to every client',
  silentDropAtExpiry: 'silent drop at expiry',
  confirmViaNextUdp: "confirmation in the ack field of the client's next UDP datagram, last id only",
  clearWithoutBreak: "receive-side clear without break: one client's ACK clears everyone's",
  registrationReadsStaleHeader: 'zero-length registration reads an uninitialised header',
};

export type RtypePresetName = 'documented' | 'implemented' | 'repaired';
export const RTYPE_PRESET_NAMES: readonly RtypePresetName[] = ['documented', 'implemented', 'repaired'];

const ALL_OFF: Omit<RtypeSwitches, 'resendTimer'> = Object.fromEntries(
  DEFECT_SWITCHES.map((s) => [s, false]),
) as Record<DefectSwitch, boolean>;
const ALL_ON: Omit<RtypeSwitches, 'resendTimer'> = Object.fromEntries(DEFECT_SWITCHES.map((s) => [s, true])) as Record<
  DefectSwitch,
  boolean
>;

export const RTYPE_PRESETS: Readonly<Record<RtypePresetName, RtypeSwitches>> = {
  /** The scheme as rtype-ack-system.md describes it: the scan every tick, TCP confirmations. */
  documented: { ...ALL_OFF, resendTimer: 'scan' },
  /** The public code: every defect on. */
  implemented: { ...ALL_ON, resendTimer: 'scan' },
  /** Every defect off, and a proper per-packet resend timer. */
  repaired: { ...ALL_OFF, resendTimer: 'per-packet' },
};

/** A preset with some switches changed; throws on an unknown name or a value of the wrong type. */
export function rtypeSwitches(preset: RtypePresetName, overrides: Partial<RtypeSwitches> = {}): RtypeSwitches {
  const base = RTYPE_PRESETS[preset];
  if (base === undefined)
    throw new Error(`rtype: unknown preset "${String(preset)}", expected ${RTYPE_PRESET_NAMES.join(', ')}`);
  for (const [name, value] of Object.entries(overrides)) {
    if (name === 'resendTimer') {
      if (value !== 'scan' && value !== 'per-packet')
        throw new Error(`rtype: switch resendTimer is ${JSON.stringify(value)}, expected 'scan' or 'per-packet'`);
    } else if (!(DEFECT_SWITCHES as readonly string[]).includes(name)) {
      throw new Error(`rtype: unknown switch "${name}"`);
    } else if (typeof value !== 'boolean') {
      throw new Error(`rtype: switch ${name} is ${JSON.stringify(value)}, expected a boolean`);
    }
  }
  return { ...base, ...overrides };
}
