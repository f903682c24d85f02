// The soak's findings about its connections: a line each for a few, one line
// summing up many (a long soak with --rejoin), and the server's seq restarts
// tied to the connections that timed out after them.
import { describe, expect, it } from 'vitest';
import { connectionFindings } from '../../src/live/soak/soak-connections.js';
import type { SoakClient, SoakMeasured } from '../../src/live/soak/soak-session.js';

function measured(clients: SoakClient[], rejoins: number): SoakMeasured {
  return {
    endS: 2100,
    stopReason: 'duration',
    cutShort: false,
    rows: [],
    rowsNotKept: 0,
    clients,
    rejoins,
    wire: { sent: 0, received: 0, lostOut: 0, lostIn: 0, unreadable: 0 },
    silences: [],
    silencesNotKept: 0,
  };
}

/** A connection the server dropped `dropAfterS` after the join, its count restarting 20 s before. */
function dropped(connection: number, joinedAtS: number, dropAfterS: number): SoakClient {
  const lastS = joinedAtS + dropAfterS;
  return {
    client: ((connection - 1) % 3) + 1,
    connection,
    joinedAtS,
    state: 'timed-out',
    lastServerDatagramS: lastS,
    serverSeqRestarts: 1,
    firstServerSeqRestart: { atS: lastS - 20, fromSeq: 255, toSeq: 0 },
  };
}

describe('soak findings about connections', () => {
  it('three dropped connections: a line each, and one line for the restarts with the time to the drop', () => {
    const lines = connectionFindings(measured([dropped(1, 7, 452), dropped(2, 9, 367), dropped(3, 11, 455)], 0));
    expect(lines.filter((l) => /^Client \d's connection timed out: .* after it joined at/.test(l))).toHaveLength(3);
    expect(lines).toContain(
      "The server's reliable seq started again before the 16-bit wrap on 3 of 3 connections, first at 356–446 s, each from 255 to 0, as a counter of 8 bits does. Stock counts to 65,535 (docs/sources.md 1); a receiver that keeps the stock 16-bit window takes the messages that follow for duplicates. Every one of those connections timed out, the server's last datagram 20 s after the restart.",
    );
    expect(lines.some((l) => l.includes('joined again'))).toBe(false);
  });

  it('many dropped connections with --rejoin: one line sums them up, and the rejoins are counted', () => {
    const clients = Array.from({ length: 12 }, (_, i) => dropped(i + 1, 10 + 500 * Math.floor(i / 3), 400 + 10 * i));
    clients.push({ ...dropped(13, 2000, 50), state: 'closed', serverSeqRestarts: 0, firstServerSeqRestart: null });
    clients.push({
      ...dropped(14, 0, 0),
      joinedAtS: null,
      state: 'closed',
      serverSeqRestarts: 0,
      firstServerSeqRestart: null,
    });
    const lines = connectionFindings(measured(clients, 11));
    expect(lines[0]).toBe(
      "12 connections timed out, and no Boot or Disconnect said why: the server's last datagram came 400–510 s after the join on the 12 that joined (each one in summary.json, measured.clients).",
    );
    expect(lines[1]).toBe(
      'The clients joined again 11 times (--rejoin) after the server ended a connection: 14 connections in all.',
    );
    expect(lines[2]).toMatch(/^The server's reliable seq started again before the 16-bit wrap on 12 of 14 connections/);
    expect(lines[3]).toBe('Clients that never joined on some connection: 2.');
  });
});
