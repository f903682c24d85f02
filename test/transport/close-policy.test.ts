// closePolicy: stock closes at once and may lose what is still
// unacknowledged; drain sends the Disconnect only once everything was ACKed, and
// each side closes after its own Disconnect was ACKed and the other's delivered.
import { describe, expect, it } from 'vitest';
import { TYPE_DISCONNECT, TYPE_GAME } from '../../src/core/codec/index.js';
import type { Role } from '../../src/model/transport/roles.js';
import { makePair, ms, payload } from '../support/wire.js';
import type { Pair } from '../support/wire.js';

const params = { keepaliveIdleMs: 1e9 };

/** First send time (ms) of each Disconnect from `from`. */
function disconnectTimes(pair: Pair, from: Role): number[] {
  return pair.sent
    .filter((r) => r.from === from && r.messages.some((m) => m.type === TYPE_DISCONNECT))
    .map((r) => r.timeUs / 1000);
}

/** The client sends one game message at 10 ms; its first two datagrams are lost. */
function leaveWithUnackedMessage(preset: 'stock' | 'fixed') {
  const pair = makePair({ preset, params });
  let clientDatagrams = 0;
  pair.dropFrom.client = () => ++clientDatagrams <= 2;
  pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 7 }));
  pair.sim.at(ms(100), () => pair.client.disconnect());
  return pair;
}

describe('closePolicy: immediate (stock)', () => {
  it('sends the Disconnect at the next update and gives up what is still unACKed', () => {
    const pair = makePair({ preset: 'stock', params });
    // Every datagram holding a game message is lost; the Disconnect goes through.
    pair.dropFrom.client = (_i, bytes) => bytes.includes(0x32);
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 7 }));
    pair.sim.at(ms(100), () => pair.client.disconnect());
    pair.sim.runUntil(ms(10_000));
    // Client updates at 47 + k*95 ms: the message left at 47 ms (lost), the Disconnect at 142 ms.
    expect(disconnectTimes(pair, 'client')).toEqual([142]);
    expect(pair.client.state).toBe('closed');
    expect(pair.gaveUp).toContain(7); // closed before its message was ever ACKed
    expect(pair.delivered.server.map((d) => d.uid)).not.toContain(7);
    expect(disconnectTimes(pair, 'server')).toEqual([]);
  });
});

describe('closePolicy: drain (fixed)', () => {
  it('waits for the ACK of every message, then both sides exchange Disconnects and close', () => {
    const pair = leaveWithUnackedMessage('fixed');
    const states: string[] = [];
    pair.sim.at(ms(120), () => states.push(pair.client.state));
    pair.sim.runUntil(ms(20_000));
    expect(states).toEqual(['draining']);
    // The lost first send (47 ms) is retransmitted after 2.0 s (2.09 s in updates), lost again, then at 4.227 s;
    // the server reads it in its update at 4.275 s and ACKs it in the next (docs/sources.md 16).
    const acked = pair.sent.find(
      (r) => r.from === 'server' && r.messages.some((m) => m.type === 1 && m.seq === 0 && (m.flags & 2) === 0),
    );
    expect(acked?.timeUs).toBe(ms(4370));
    // The Disconnect waits for that ACK (read at 4.417 s), then leaves at the next client update.
    expect(disconnectTimes(pair, 'client')[0]).toBe(4512);
    // The server reads it at 4.560 s, drains (nothing owed) and sends its own Disconnect at its next update.
    expect(disconnectTimes(pair, 'server')[0]).toBe(4655);
    expect(pair.delivered.server.map((d) => d.uid)).toContain(7);
    expect(pair.delivered.client.some((d) => d.type === TYPE_DISCONNECT)).toBe(true);
    expect(pair.gaveUp).toEqual([]);
    expect(pair.client.state).toBe('closed');
    expect(pair.server.state).toBe('closed');
  });

  it('the remote side drains what it still owes before its own Disconnect', () => {
    const pair = makePair({ preset: 'fixed', params });
    let serverDatagrams = 0;
    // The server's message to the client is lost twice: it must be delivered before the server leaves.
    pair.dropFrom.server = (_i, bytes) => bytes.length > 20 && ++serverDatagrams <= 2;
    pair.sim.at(ms(10), () => pair.server.send({ type: TYPE_GAME, payload: payload(30), reliable: true, uid: 9 }));
    pair.sim.at(ms(60), () => pair.client.disconnect());
    pair.sim.runUntil(ms(20_000));
    const serverDisconnect = disconnectTimes(pair, 'server')[0];
    const delivered = pair.delivered.client.find((d) => d.uid === 9);
    expect(delivered).toBeDefined();
    expect(serverDisconnect).toBeGreaterThan(4000); // after two 2.09 s retransmit rounds
    expect(pair.gaveUp).toEqual([]);
    expect([pair.client.state, pair.server.state]).toEqual(['closed', 'closed']);
  });

  it('lingers after both Disconnects so a re-sent Disconnect is ACKed again', () => {
    const pair = makePair({ preset: 'fixed', params });
    // Every ACK the client sends for the server's Disconnect in the first round is lost.
    let dropped = 0;
    pair.dropFrom.client = (_i, bytes) => {
      const lowAck = bytes.length >= 6 && bytes[2] === 0x01 && bytes[5] === 0x02;
      if (lowAck && pair.server.state === 'disconnecting' && dropped < 3) {
        dropped++;
        return true;
      }
      return false;
    };
    pair.sim.at(ms(60), () => pair.client.disconnect());
    pair.sim.runUntil(ms(20_000));
    expect(dropped).toBe(3); // the fault fired
    expect(disconnectTimes(pair, 'server').length).toBeGreaterThanOrEqual(2); // re-sent
    expect([pair.client.state, pair.server.state]).toEqual(['closed', 'closed']);
    expect(pair.gaveUp).toEqual([]);
  });

  it('a drain that cannot finish ends the connection at the peer timeout and counts the loss', () => {
    // Keepalives keep both sides alive, so only the drain's own bound can end it.
    const pair = makePair({ preset: 'fixed', params: { keepaliveIdleMs: 2000, peerTimeoutMs: 10_000 } });
    // Every game message from the client is lost; everything else flows.
    pair.dropFrom.client = (_i, bytes) => bytes.includes(0x32);
    pair.sim.at(ms(10), () => pair.client.send({ type: TYPE_GAME, payload: payload(20), reliable: true, uid: 11 }));
    pair.sim.at(ms(100), () => pair.client.disconnect());
    pair.sim.runUntil(ms(30_000));
    expect(pair.client.state).toBe('gave-up');
    expect(disconnectTimes(pair, 'client')).toEqual([]);
    expect(pair.gaveUp).toContain(11);
  });
});
