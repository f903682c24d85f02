// `bcsim peer client` against `bcsim peer server` on loopback,
// as real processes on real UDP. Every pair runs at once (the tests are
// concurrent), so the file takes about the longest run: ~32 s.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFORMANCE_RULES, KEY_REUSE_GAP_MS } from '../../src/live/conformance/rules.js';
import { bcsim, freeUdpPort } from '../support/live.js';

const TRAFFIC_S = 20;
/** Join (~8 s on the wall clock with 95 ms updates and the 4.65 s ship selection), then 20 s of traffic. */
const CLIENT_S = 9 + TRAFFIC_S;
/** A process still running this long after its --duration did not stop by itself: it is killed (signal set). */
const EXIT_GRACE_S = 20;

interface LiveJson {
  role: string;
  wallSeconds: number;
  stopReason: string;
  peer: {
    retransmits: number;
    connections: Record<string, { joinedAtS: number | null; state: string; slot: number | null }>;
  };
  delivery: {
    reliableSent: number;
    acknowledged: number;
    unacknowledged: number;
    gaveUp: number;
    unreliableSent: number;
    unreliableReceived: number;
    reliableReceived: number;
  };
  timers: { sendLatenessUs: { count: number; p50: number; p99: number } };
  noAnswer: string | null;
  conformanceCounts: { rules: number; passed: number; failed: number; notExercised: number };
  conformance: Array<{
    rule: string;
    status: string;
    passed: boolean;
    violations: number;
    reason?: string;
    evidence: Array<{ seq: number; hex: string; detail: string }>;
  }>;
}

type Running = ReturnType<typeof bcsim>;

async function pair(
  serverMode: string,
  clientMode: string,
  clientExtra: string[] = [],
  serverExtra: string[] = [],
  during: (client: Running, server: Running) => Promise<void> = async () => {},
) {
  const port = await freeUdpPort();
  const server = bcsim(
    [
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${port}`,
      '--mode',
      serverMode,
      // Stopped by the test once the client is gone (SIGINT), so it is there for all of the client's run
      // however long the client took to start; the duration is a backstop.
      '--duration',
      `${CLIENT_S + EXIT_GRACE_S}s`,
      '--json',
      ...serverExtra,
    ],
    (CLIENT_S + 2 * EXIT_GRACE_S) * 1000,
  );
  await server.stderrSays('waiting for clients');
  const client = bcsim(
    [
      'peer',
      'client',
      '--connect',
      `127.0.0.1:${port}`,
      '--mode',
      clientMode,
      '--duration',
      `${CLIENT_S}s`,
      '--json',
      ...clientExtra,
    ],
    (CLIENT_S + EXIT_GRACE_S) * 1000,
  );
  await during(client, server);
  const c = await client.exited;
  server.child.kill('SIGINT');
  const s = await server.exited;
  return {
    client: c,
    server: s,
    clientJson: JSON.parse(c.stdout) as LiveJson,
    serverJson: JSON.parse(s.stdout) as LiveJson,
  };
}

/** The default rules (rules.ts) with every window ten times as wide, at most the 60 s a window may be; the counts unchanged. */
function lenientRules(): string {
  const widen = (ms: number) => Math.min(10 * ms, KEY_REUSE_GAP_MS);
  const rules = DEFAULT_CONFORMANCE_RULES.map((r) => {
    switch (r.rule) {
      case 'fragment-acks':
        return { ...r, withinMs: widen(r.withinMs) };
      case 'ack-within':
        return { ...r, ms: widen(r.ms) };
      case 'retransmit-interval':
        return { ...r, maxMs: widen(r.maxMs) };
      case 'stops-after-ack':
        return { ...r, graceMs: widen(r.graceMs) };
      default:
        return r;
    }
  });
  const file = join(mkdtempSync(join(tmpdir(), 'bcsim-peer-')), 'lenient.json');
  writeFileSync(file, JSON.stringify({ rules }));
  return file;
}

describe.concurrent('bcsim peer client <-> bcsim peer server (loopback)', () => {
  for (const [serverMode, clientMode] of [
    ['fixed', 'fixed'],
    ['stock', 'stock'],
    ['stock', 'fixed'],
    ['fixed', 'stock'],
  ]) {
    it(`${clientMode} client with ${serverMode} server: join, then ${TRAFFIC_S} s of traffic`, async () => {
      // The fixed pair must fail no rule: its windows are wide enough for a busy machine's late timers
      // (the default 1 s for an ACK is a wall-clock window; a loaded CI machine has missed it), and
      // every rule still checks the same behaviour.
      const lenient = clientMode === 'fixed' && serverMode === 'fixed' ? ['--expect', lenientRules()] : [];
      const { client, server, clientJson, serverJson } = await pair(serverMode, clientMode, lenient, lenient);
      expect(client.signal).toBeNull();
      expect(server.signal).toBeNull();
      const clientPlayedS = clientJson.wallSeconds - (Object.values(clientJson.peer.connections)[0].joinedAtS ?? 0);
      for (const [j, mode] of [
        [clientJson, clientMode],
        [serverJson, serverMode],
      ] as const) {
        const [connection] = Object.values(j.peer.connections);
        expect(connection.joinedAtS).not.toBeNull();
        // A loaded machine's join takes longer on the wall clock and leaves less of --duration to play
        // (19 s idle, 18 at a load of 10): enough to play, and the rates below are per second played.
        expect(j.wallSeconds - (connection.joinedAtS as number)).toBeGreaterThanOrEqual(TRAFFIC_S / 2);
        // Both ends play combat for the client's stay: ~49 StateUpdates/s each way by the sender's own clock
        // (its loop runs every update that fell due, however late), and reliable game events. The other end
        // gets what was sent: loopback loses none, and a little may be in flight when the client stops.
        const other = j === clientJson ? serverJson : clientJson;
        expect(j.delivery.unreliableSent).toBeGreaterThan(25 * clientPlayedS);
        expect(other.delivery.unreliableReceived).toBeGreaterThan(0.9 * j.delivery.unreliableSent);
        expect(j.delivery.reliableSent).toBeGreaterThan(10);
        // A stock client gives its never-ACKed fragments up in the end (the bug); a fixed end never gives up here.
        if (mode === 'fixed') expect(j.delivery.gaveUp).toBe(0);
        expect(j.conformance.find((r) => r.rule === 'join-completes')?.passed).toBe(true);
        expect(j.noAnswer).toBeNull();
        // Every rule has a verdict, and the counts add up; a rule not exercised says why.
        const { rules, passed, failed, notExercised } = j.conformanceCounts;
        expect([rules, passed + failed + notExercised]).toEqual([7, 7]);
        for (const r of j.conformance) expect(r.status === 'not-exercised', r.rule).toBe(typeof r.reason === 'string');
      }
      // --duration bounds the client's run, goodbye included: 1 s after it at the latest by the run's clock
      // (0.5 s more for a busy machine's late timers). The process then summarises and exits by itself
      // (signal null above: the test kills a process still there EXIT_GRACE_S after its duration).
      expect(clientJson.wallSeconds).toBeLessThanOrEqual(CLIENT_S + 1 + 0.5);
      expect(serverJson.stopReason).toBe('signal');
      expect(serverJson.peer.connections['2'].slot).toBe(2);
      expect(clientJson.stopReason).toBe('duration');
      // The stock client re-sends its fragmented checksum response however the server ACKs it (the bug).
      // A fixed client never re-sends a message after its ACK, as the server judges it; it may re-send
      // one whose ACK a busy machine delayed past the 2 s interval, which is not a fault of either end.
      const clientAfterAck = serverJson.conformance.find((r) => r.rule === 'stops-after-ack');
      if (clientMode === 'stock') expect(clientJson.peer.retransmits).toBeGreaterThan(0);
      else expect(clientAfterAck?.status, JSON.stringify(clientAfterAck)).not.toBe('fail');
      if (clientMode === 'fixed' && serverMode === 'fixed') {
        // The fixed pair fails no default rule, both ways. A fixed end whose ACKs come in time never
        // re-sends, so retransmit-interval is not exercised, which does not fail the run.
        // On a failure, the rules that failed and their first evidence (the pair fails intermittently in CI).
        const failedRules = (j: LiveJson) =>
          JSON.stringify(j.conformance.filter((r) => r.status === 'fail').map((r) => [r.rule, r.evidence.slice(0, 2)]));
        expect(client.code, failedRules(clientJson)).toBe(0);
        expect(server.code, failedRules(serverJson)).toBe(0);
        for (const [j, other] of [
          [clientJson, serverJson],
          [serverJson, clientJson],
        ]) {
          expect(j.conformanceCounts.failed).toBe(0);
          const interval = j.conformance.find((r) => r.rule === 'retransmit-interval');
          if (other.peer.retransmits === 0) expect(interval).toMatchObject({ status: 'not-exercised', passed: false });
          else expect(interval?.status).toBe('pass');
        }
      }
    }, 90_000);
  }

  it('a process stopped for 3 s (the client, then the server) is reported as stalled and fails no rule', async () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const stop = async (who: Running) => {
      who.child.kill('SIGSTOP');
      await pause(3000);
      who.child.kill('SIGCONT');
    };
    const lenient = ['--expect', lenientRules()];
    const { client, server, clientJson, serverJson } = await pair('fixed', 'fixed', lenient, lenient, async (c, s) => {
      await pause(12_000);
      await stop(c);
      await pause(2000);
      await stop(s);
    });
    // The fault fired on both sides: each noticed a stall of about the 3 s it was stopped.
    for (const j of [clientJson, serverJson] as Array<
      LiveJson & { timers: { stalls: { count: number; longestUs: number } } }
    >) {
      expect(j.timers.stalls.count).toBeGreaterThanOrEqual(1);
      expect(j.timers.stalls.longestUs).toBeGreaterThan(2_000_000);
    }
    // Stopped, each end's re-sends waited; after it, each went once, and reads drained after a stall
    // are not taken for re-sends a millisecond apart (a 3 s stop failed retransmit-interval before).
    const failedRules = (j: LiveJson) => JSON.stringify(j.conformance.filter((r) => r.status === 'fail'));
    expect(client.code, failedRules(clientJson)).toBe(0);
    expect(server.code, failedRules(serverJson)).toBe(0);
    expect(clientJson.conformance.find((r) => r.rule === 'join-completes')?.passed).toBe(true);
  }, 90_000);

  it('a rule the stock server breaks fails with exit 1, the evidence and a JUnit file; --require-exercised fails a rule that checked nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bcsim-peer-'));
    const rules = join(dir, 'rules.json');
    // docs/sources.md 8: the stock two-pass outbox sends an ACK entry up to 9 times; a fixed one 3.
    // The server's first re-send is due 60 s after a send, past the whole run, so retransmit-interval
    // checks nothing however late a busy machine delivers our ACKs (the stock 2 s would re-send then).
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [
          { rule: 'ack-sends-max', max: 3 },
          { rule: 'fragment-acks', withinMs: 2000 },
          { rule: 'retransmit-interval', minMs: 200, maxMs: 3000 },
        ],
      }),
    );
    const junit = join(dir, 'out.xml');
    const { client, server, clientJson } = await pair(
      'stock',
      'fixed',
      ['--expect', rules, '--junit', junit, '--require-exercised'],
      ['--set', 'mode.retransmit.baseMs=60000'],
    );
    expect(client.code).toBe(1);
    expect(JSON.parse(server.stdout).mode).toContain('"baseMs":60000');
    const failed = clientJson.conformance.find((r) => r.rule === 'ack-sends-max');
    expect(failed?.passed).toBe(false);
    expect(failed?.evidence[0].hex).toMatch(/^[0-9A-F]{2}( [0-9A-F]{2})+/);
    expect(clientJson.conformance.find((r) => r.rule === 'fragment-acks')?.status).toBe('pass');
    // Required to be exercised, it failed with its reason and no violation.
    expect(clientJson.conformance.find((r) => r.rule === 'retransmit-interval')).toMatchObject({
      status: 'fail',
      passed: false,
      violations: 0,
      reason: expect.stringMatching(/^the counterpart re-sent none of its \d+ reliable messages$/),
    });
    expect(clientJson.conformanceCounts).toEqual({ rules: 4, passed: 2, failed: 2, notExercised: 0 });
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/tests="4" failures="2">/);
    expect(xml).toMatch(
      /<failure message="not exercised, and required to be: checked 0 events: the counterpart re-sent none of its \d+ reliable messages"\/>/,
    );
  }, 90_000);
});
