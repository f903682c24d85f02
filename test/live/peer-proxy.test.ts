// `bcsim peer client` -> `bcsim proxy` -> `bcsim peer server`, as
// real processes on loopback: 10 % loss each way that a fixed pair survives
// without losing a message, and a drop rule on fragment ACKs that makes a
// fixed client re-send its fragments, as the proxy's own analysis reports.
import { describe, expect, it } from 'vitest';
import { bcsim, freeUdpPort } from '../support/live.js';

interface LiveJson {
  peer: {
    retransmits: number;
    fragmentRetransmits: number;
    connections: Record<string, { joinedAtS: number | null; state: string }>;
  };
  delivery: {
    reliableSent: number;
    transportReliableSent: number;
    acknowledged: number;
    unacknowledged: number;
    gaveUp: number;
    reliableDelivered: number;
    reliableReceived: number;
    duplicatesReceived: number;
  };
}

interface ProxyJson {
  clients: Array<{
    links: Record<
      'clientToServer' | 'serverToClient',
      { sent: number; dropped: number; droppedBy: Record<string, number>; messagesDropped: number }
    >;
  }>;
  analysis: { connections: Array<{ clientToServer: { fragments: { retransmissions: number; rounds: number } } }> };
}

/** A proxy or server still running this long after the client's --duration is killed (its signal is then set). */
const EXIT_GRACE_S = 20;

async function chain(proxyArgs: string[], clientS: number) {
  const [serverPort, proxyPort] = [await freeUdpPort(), await freeUdpPort()];
  const server = bcsim(
    [
      'peer',
      'server',
      '--listen',
      `127.0.0.1:${serverPort}`,
      '--mode',
      'fixed',
      // Stopped by the test once the client is gone, however long the client took to start; a backstop.
      '--duration',
      `${clientS + EXIT_GRACE_S}s`,
      '--json',
    ],
    (clientS + 2 * EXIT_GRACE_S) * 1000,
  );
  const proxy = bcsim(
    [
      'proxy',
      '--listen',
      `127.0.0.1:${proxyPort}`,
      '--upstream',
      `127.0.0.1:${serverPort}`,
      '--duration',
      `${clientS + EXIT_GRACE_S}s`,
      '--json',
      ...proxyArgs,
    ],
    (clientS + 2 * EXIT_GRACE_S) * 1000,
  );
  await Promise.all([server.stderrSays('waiting for clients'), proxy.stderrSays('listening on')]);
  const client = bcsim([
    'peer',
    'client',
    '--connect',
    `127.0.0.1:${proxyPort}`,
    '--mode',
    'fixed',
    '--duration',
    `${clientS}s`,
    '--json',
  ]);
  // The client ends by its own --duration, goodbye included; then the proxy and the server are
  // stopped as a user stops them, so a slow start of the client on a busy machine cannot cut its end.
  const c = await client.exited;
  proxy.child.kill('SIGINT');
  server.child.kill('SIGINT');
  const [p, s] = await Promise.all([proxy.exited, server.exited]);
  for (const run of [c, p, s]) expect(run.signal, run.stderr).toBeNull();
  return {
    client: JSON.parse(c.stdout) as LiveJson,
    proxy: JSON.parse(p.stdout) as ProxyJson,
    server: JSON.parse(s.stdout) as LiveJson,
  };
}

describe.concurrent('through bcsim proxy', () => {
  it('10 % loss each way: the fixed pair joins and loses nothing, and the proxy applied the loss', async () => {
    const { client, proxy, server } = await chain(['--loss', '0.1', '--seed', '3'], 29);
    const links = proxy.clients[0].links;
    // The fault fired: about one datagram in ten was dropped for loss, each way.
    for (const dir of ['clientToServer', 'serverToClient'] as const) {
      expect(links[dir].droppedBy.loss).toBeGreaterThan(0.05 * links[dir].sent);
      expect(links[dir].droppedBy.loss).toBeLessThan(0.15 * links[dir].sent);
    }
    for (const end of [client, server]) {
      expect(Object.values(end.peer.connections)[0].joinedAtS).not.toBeNull();
      expect(end.delivery.gaveUp).toBe(0);
      expect(end.peer.retransmits).toBeGreaterThan(0); // the losses were repaired by re-sends
    }
    // Every game message the client sent reached the server, none twice: the server received them all,
    // plus at most the client transport's own (its Disconnect, which may still be in flight). What the
    // server ACKed it delivered, or holds in order behind a message still unACKed when the client's
    // drain ran out at its --duration (its summary counts that one as unacknowledged).
    const received = server.delivery.reliableReceived - server.delivery.duplicatesReceived;
    const held = received - server.delivery.reliableDelivered;
    expect(received).toBeGreaterThanOrEqual(client.delivery.acknowledged);
    expect(server.delivery.reliableDelivered + held).toBeGreaterThanOrEqual(
      client.delivery.reliableSent - client.delivery.unacknowledged,
    );
    expect(server.delivery.reliableDelivered).toBeLessThanOrEqual(
      client.delivery.reliableSent + client.delivery.transportReliableSent,
    );
    if (client.delivery.unacknowledged === 0)
      expect(server.delivery.reliableDelivered).toBeGreaterThanOrEqual(client.delivery.reliableSent);
    // Every message of the server that the client ACKed reached the client: delivered, or held in order
    // behind one still unACKed when the server was stopped.
    expect(client.delivery.reliableReceived - client.delivery.duplicatesReceived).toBeGreaterThanOrEqual(
      server.delivery.acknowledged,
    );
    if (server.delivery.unacknowledged === 0)
      expect(client.delivery.reliableDelivered).toBeGreaterThanOrEqual(server.delivery.acknowledged);
  }, 60_000);

  it('dropping every fragment ACK makes a fixed client re-send its fragments, and the proxy analysis shows it', async () => {
    const rule = JSON.stringify([{ match: { type: 'ack', fragment: true } }]);
    const { client, proxy } = await chain(['--set', `link.serverToClient.drop=${rule}`], 14);
    const toClient = proxy.clients[0].links.serverToClient;
    expect(toClient.droppedBy.rule + toClient.messagesDropped).toBeGreaterThan(0); // the rule fired
    expect(client.peer.fragmentRetransmits).toBeGreaterThan(0);
    const fragments = proxy.analysis.connections[0].clientToServer.fragments;
    expect(fragments.retransmissions).toBeGreaterThan(0);
    expect(fragments.rounds).toBeGreaterThan(0);
  }, 60_000);
});
