// Where each simulated host sits on the captured network.
// The server listens on the game's default port 22101 (docs/sources.md 19) at its
// identity address 10.10.10.1; client k uses its identity address
// 10.10.10.(238 + k) (transport/identity.ts) and port 22101 + k, so every
// connection is a distinct UDP flow. MACs are locally administered
// 02:00 followed by the four IPv4 bytes: 02:00:0a:0a:0a:<last IP byte>.
import { SERVER_IDENTITY, clientIdentity } from '../../model/transport/index.js';
import type { Role } from '../../model/transport/index.js';
import { macFor } from '../../core/pcap/index.js';
import type { Endpoint } from '../../core/pcap/index.js';

/** The game's default UDP port (docs/sources.md 19): the server's. */
export const SERVER_PORT = 22101;

export const SERVER_ENDPOINT: Endpoint = {
  mac: macFor(SERVER_IDENTITY.address),
  ip: [...SERVER_IDENTITY.address],
  port: SERVER_PORT,
};

/** Client k (1-based): its identity address and port 22101 + k. */
export function clientEndpoint(client: number): Endpoint {
  const ip = [...clientIdentity(client).address];
  return { mac: macFor(ip), ip, port: SERVER_PORT + client };
}

/** The sending and receiving ends of a datagram that `from` sent on client `client`'s connection. */
export function endpointsOf(from: Role, client: number): { readonly source: Endpoint; readonly destination: Endpoint } {
  const peer = clientEndpoint(client);
  return from === 'server'
    ? { source: SERVER_ENDPOINT, destination: peer }
    : { source: peer, destination: SERVER_ENDPOINT };
}
