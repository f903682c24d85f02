// Each defect switch of the R-Type scheme produces its symptom, and only that:
// one run per defect, switched on alone over `repaired`, against `repaired` itself.
// Same workload, links and seed in every run.
import { describe, expect, it } from 'vitest';
import { PERFECT_LINK } from '../../src/model/link/index.js';
import type { LinkConfig } from '../../src/model/link/index.js';
import { DEFECT_SWITCHES } from '../../src/rtype/transport/index.js';
import type { DefectSwitch, RtypeSwitches } from '../../src/rtype/transport/index.js';
import { rtypeSymptoms, runRtype } from '../../src/rtype/session/index.js';
import type { RtypeConfigInput, RtypeSymptom } from '../../src/rtype/session/index.js';

const SEED = 7;
const LOSSY: LinkConfig = {
  ...PERFECT_LINK,
  latency: { baseMs: 30, jitterMs: 5, distribution: 'uniform' },
  loss: { model: 'bernoulli', probability: 0.2 },
};

/** 4 clients, 60 s, 20 % loss both ways; two early bursts so every late joiner registers after ack ids went round. */
const BASE: RtypeConfigInput = {
  preset: 'repaired',
  durationMs: 60_000,
  links: { serverToClient: LOSSY, clientToServer: LOSSY },
  workload: {
    deathsPerSecond: 2,
    burstsPerMinute: 4,
    scriptedBursts: [
      { atMs: 1_200, size: 8 },
      { atMs: 2_200, size: 8 },
    ],
  },
};

function symptoms(config: RtypeConfigInput, switches: Partial<RtypeSwitches> = {}): RtypeSymptom[] {
  return rtypeSymptoms(runRtype({ ...config, switches }, SEED));
}

/** What each defect alone shows over `repaired` in BASE. */
const EXPECTED: Record<Exclude<DefectSwitch, 'silentDropAtExpiry' | 'registrationReadsStaleHeader'>, RtypeSymptom[]> = {
  // Clients never see an id, so never confirm: every pair is re-sent to expiry.
  ackZeroedOnSend: ['acksNeverSent', 'duplicateDeaths'],
  // The real lists stay empty: nothing to re-send, every confirmation clears nothing.
  pendingListsOnCopies: ['noResend', 'deathsLost', 'unreportedLoss', 'acksUnmatched'],
  // The loop sees no user: same outcome through another door.
  loopHoldsStaleCopies: ['noResend', 'deathsLost', 'unreportedLoss', 'acksUnmatched'],
  // Ids never match ticks: confirmations clear nothing, the timer re-sends to expiry.
  pendingHoldsTicks: ['acksUnmatched', 'duplicateDeaths'],
  // A retry after 150 ticks (5 s), expiry after 1500 ticks (50 s).
  thresholdsInTicks: ['slowRecovery'],
  // Every resend broadcast every tick: copies to clients that have it, confirmed again.
  resendEveryTickToAll: ['resendStorm', 'acksUnmatched', 'duplicateDeaths'],
  // Last id only: the rest of a burst is re-sent; the sticky id is confirmed again and again.
  confirmViaNextUdp: ['acksUnmatched', 'duplicateDeaths'],
  // The first client to confirm clears everyone's entry: the others are never re-sent.
  clearWithoutBreak: ['deathsLost', 'unreportedLoss', 'crossClientClear', 'acksUnmatched'],
};

/**
 * Symptoms that may also show, by chance of the losses. Under clearWithoutBreak a death is
 * re-sent only when every client lost it (0.2^4 per death), so some seeds never re-send.
 */
const INCIDENTAL: Partial<Record<DefectSwitch, RtypeSymptom[]>> = { clearWithoutBreak: ['noResend'] };

describe('rtype: each defect switch produces its symptom, and only that', () => {
  it('repaired shows no symptom', () => {
    expect(symptoms(BASE)).toEqual([]);
  });

  it.each(Object.entries(EXPECTED) as Array<[DefectSwitch, RtypeSymptom[]]>)('%s alone shows %j', (name, expected) => {
    const shown = symptoms(BASE, { [name]: true });
    const allowed = new Set([...expected, ...(INCIDENTAL[name] ?? [])]);
    expect(
      shown.filter((s) => !allowed.has(s)),
      'unexpected symptoms',
    ).toEqual([]);
    expect(
      expected.filter((s) => !shown.includes(s)),
      'missing symptoms',
    ).toEqual([]);
  });

  it('silentDropAtExpiry: a downlink outage expires deaths; silently, they go unreported and strand list entries', () => {
    // Client 2's downlink is down 20-25 s: longer than the 1.5 s expiry, so repaired loses deaths too, but says so.
    const outage: RtypeConfigInput = {
      ...BASE,
      clientLinks: [null, { serverToClient: { ...LOSSY, outages: [{ startMs: 20_000, endMs: 25_000 }] } }],
    };
    expect(symptoms(BASE, { silentDropAtExpiry: true }), 'no expiry without the outage').toEqual([]);
    const repaired = symptoms(outage);
    const silent = symptoms(outage, { silentDropAtExpiry: true });
    expect(repaired).toContain('deathsLost');
    expect(repaired).not.toContain('unreportedLoss');
    expect(silent.filter((s) => !repaired.includes(s))).toEqual(['unreportedLoss', 'growingLists']);
    // What repaired may show and silent not: a confirmation racing the expiry, which a stranded entry absorbs.
    expect(repaired.filter((s) => !silent.includes(s) && s !== 'acksUnmatched')).toEqual([]);
  });

  it('registrationReadsStaleHeader: inert over TCP confirmations; over UDP ones a registration confirms a stale id', () => {
    expect(symptoms(BASE, { registrationReadsStaleHeader: true })).toEqual([]);
    const udp = symptoms(BASE, { confirmViaNextUdp: true });
    const stale = symptoms(BASE, { confirmViaNextUdp: true, registrationReadsStaleHeader: true });
    expect(stale.filter((s) => !udp.includes(s))).toEqual(['registrationAck']);
    expect(udp.filter((s) => !stale.includes(s))).toEqual([]);
  });

  it('the table covers every defect switch', () => {
    const covered = new Set<string>([...Object.keys(EXPECTED), 'silentDropAtExpiry', 'registrationReadsStaleHeader']);
    expect(DEFECT_SWITCHES.filter((s) => !covered.has(s))).toEqual([]);
  });
});
