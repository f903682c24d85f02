// The first thing `bcsim peer` says when the counterpart never sent a single
// datagram: nothing of it can be judged, and the likely cause is an address
// nobody listens on (or a client pointed elsewhere), not a transport bug.
import type { LiveSummary } from './live-summary.js';

/** One sentence, or null when the counterpart sent at least one datagram we read. */
export function noAnswerSentence(
  summary: Pick<LiveSummary, 'role' | 'local' | 'remote' | 'wallSeconds' | 'wire'>,
): string | null {
  if (summary.wire.received > 0) return null;
  const seconds = `${summary.wallSeconds.toFixed(1)} s`;
  const refused = summary.wire.refusedAddresses;
  const elsewhere =
    refused > 0 ? ` (${refused} datagram${refused === 1 ? '' : 's'} came from other addresses and were refused)` : '';
  if (summary.role === 'client')
    return `bcsim peer client: no answer from ${summary.remote ?? '?'} in ${seconds}${elsewhere} — is a server listening there?`;
  return `bcsim peer server: no client connected to ${summary.local} in ${seconds}${elsewhere} — is a client pointed at this address?`;
}
