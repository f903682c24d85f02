// The live join is the scenario's (traffic.manifest, docs/sources.md 31): `bcsim peer
// server` asks the manifest's rounds and `bcsim peer client` answers the round each
// request asks. A client whose manifest lists another number of rounds waits for
// requests that never come and never finishes the join.
import { describe, expect, it } from 'vitest';
import { bcsim, freeUdpPort } from '../support/live.js';

const TWO_ROUNDS = 'test/scenarios/manifest-two-rounds.json';
/**
 * The join takes ~7 s on the wall clock (95 ms updates, the 4.65 s ship selection); the client
 * stays 20 s, so a machine busy with the other live tests (campaigns of 18 servers at once) still
 * sees it through.
 */
const CLIENT_S = 20;

interface LiveJson {
  peer: { connections: Record<string, { joinedAtS: number | null }> };
  conformance: Array<{ rule: string; passed: boolean; checked: number }>;
}

async function pair(clientScenario: string, clientSets: readonly string[] = []) {
  const port = await freeUdpPort();
  const server = bcsim([
    'peer',
    'server',
    '--listen',
    `127.0.0.1:${port}`,
    '--scenario',
    TWO_ROUNDS,
    '--duration',
    `${CLIENT_S + 3}s`,
    '--json',
  ]);
  await server.stderrSays('waiting for clients');
  const client = bcsim([
    'peer',
    'client',
    '--connect',
    `127.0.0.1:${port}`,
    '--scenario',
    clientScenario,
    ...clientSets.flatMap((x) => ['--set', x]),
    '--duration',
    `${CLIENT_S}s`,
    '--json',
  ]);
  const [c, s] = await Promise.all([client.exited, server.exited]);
  return { client: JSON.parse(c.stdout) as LiveJson, server: JSON.parse(s.stdout) as LiveJson };
}

const joined = (j: LiveJson) => j.conformance.find((r) => r.rule === 'join-completes');

describe.concurrent('a declared manifest, live on loopback', () => {
  it('client and server of the same manifest (rounds 0, 7, 0xFF) complete the join', async () => {
    const { client, server } = await pair(TWO_ROUNDS);
    for (const j of [client, server]) {
      expect(joined(j)?.passed).toBe(true);
      expect(Object.values(j.peer.connections)[0].joinedAtS).not.toBeNull();
    }
  }, 60_000);

  it('a client whose manifest numbers a round differently still joins: it answers the round the server asked', async () => {
    const { client, server } = await pair(TWO_ROUNDS, ['traffic.manifest.rounds[1].round=1']);
    for (const j of [client, server]) expect(joined(j)?.passed).toBe(true);
  }, 60_000);

  it('a client of the default manifest does not: its script waits for five rounds, the server asks three', async () => {
    const { client } = await pair('live');
    expect(joined(client)?.passed).toBe(false);
    expect(Object.values(client.peer.connections)[0].joinedAtS).toBeNull();
  }, 60_000);
});
