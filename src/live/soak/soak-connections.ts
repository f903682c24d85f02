// The soak's findings about its connections: the ones the server ended with no
// Boot or Disconnect, the rejoins (--rejoin), and a server whose reliable seq
// started again before the 16-bit wrap (docs/sources.md 1). A few connections
// get a line each; more are summed up, so a 4-hour soak's findings stay short.
import { fmt } from '../../core/output/index.js';
import type { SoakClient, SoakMeasured } from './soak-session.js';

/** Up to this many connections a finding names each one; past it, one line sums them up. */
const LISTED_CONNECTIONS = 3;

export function connectionFindings(m: SoakMeasured): string[] {
  const lines: string[] = [];
  const many = m.rejoins > 0;
  const timedOut = m.clients.filter((c) => c.state === 'timed-out');
  if (timedOut.length <= LISTED_CONNECTIONS)
    for (const c of timedOut)
      lines.push(
        `Client ${c.client}'s connection${many ? ` ${c.connection}` : ''} timed out: the server's last datagram to it came at ${c.lastServerDatagramS === null ? 'no time (it sent none)' : `${fmt(c.lastServerDatagramS)} s`}${lasted(c)}, and no Boot or Disconnect said why.`,
      );
  else {
    const spans = timedOut.flatMap((c) =>
      c.joinedAtS === null || c.lastServerDatagramS === null ? [] : [c.lastServerDatagramS - c.joinedAtS],
    );
    lines.push(
      `${timedOut.length} connections timed out, and no Boot or Disconnect said why${spans.length === 0 ? '' : `: the server's last datagram came ${range(spans)} s after the join on the ${spans.length} that joined`} (each one in summary.json, measured.clients).`,
    );
  }
  if (many)
    lines.push(
      `The clients joined again ${times(m.rejoins)} (--rejoin) after the server ended a connection: ${m.clients.length} connections in all.`,
    );
  const restarted = m.clients.filter((c) => c.firstServerSeqRestart !== null);
  if (restarted.length > 0) lines.push(restartFinding(restarted, m.clients.length));
  const notJoined = [...new Set(m.clients.filter((c) => c.joinedAtS === null).map((c) => c.client))];
  if (notJoined.length > 0)
    lines.push(`Clients that never joined${many ? ' on some connection' : ''}: ${notJoined.join(', ')}.`);
  return lines;
}

/** The server's count went back (255 -> 0 is a counter of 8 bits); and how soon a connection that timed out ended after it. */
function restartFinding(restarted: readonly SoakClient[], connections: number): string {
  const firsts = restarted.map((c) => c.firstServerSeqRestart as NonNullable<SoakClient['firstServerSeqRestart']>);
  const eightBits = firsts.every((f) => f.fromSeq === 255 && f.toSeq === 0);
  const where =
    restarted.length === 1
      ? `on client ${restarted[0].client}'s connection, ${times(restarted[0].serverSeqRestarts)}, first at ${fmt(firsts[0].atS)} s (seq ${firsts[0].fromSeq}, then ${firsts[0].toSeq})`
      : `on ${restarted.length} of ${connections} connections, first at ${range(firsts.map((f) => f.atS))} s`;
  const ended = restarted.flatMap((c) =>
    c.state === 'timed-out' && c.lastServerDatagramS !== null && c.firstServerSeqRestart !== null
      ? [c.lastServerDatagramS - c.firstServerSeqRestart.atS]
      : [],
  );
  return (
    `The server's reliable seq started again before the 16-bit wrap ${where}${eightBits ? ', each from 255 to 0, as a counter of 8 bits does' : ''}. ` +
    'Stock counts to 65,535 (docs/sources.md 1); a receiver that keeps the stock 16-bit window takes the messages that follow for duplicates.' +
    (ended.length === 0
      ? ''
      : ` ${ended.length === restarted.length ? 'Every one of those connections' : `${ended.length} of those connections`} timed out, the server's last datagram ${range(ended)} s after the restart.`)
  );
}

/** How long a connection lasted in game: from its join to the server's last datagram on it. */
function lasted(c: SoakClient): string {
  if (c.joinedAtS === null || c.lastServerDatagramS === null) return '';
  return ` (${fmt(c.lastServerDatagramS - c.joinedAtS)} s after it joined at ${fmt(c.joinedAtS)} s)`;
}

function range(values: readonly number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return fmt(lo) === fmt(hi) ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
}

function times(n: number): string {
  return n === 1 ? 'once' : n === 2 ? 'twice' : `${fmt(n)} times`;
}
