// A peer whose wire log filled is judged on the part it kept: the rules and
// the analysis end where the log stopped being complete, so a message sent
// just before the cut, whose ACK was not kept, is not called unACKed.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, evaluateConformance } from '../../src/live/conformance/index.js';
import { renderLiveSummary } from '../../src/live/peer/live-report.js';
import { judgedUntilUs } from '../../src/live/peer/live-summary.js';
import { loadScenario } from '../../src/model/scenario/load.js';
import { switchesFor } from '../../src/model/session/run.js';
import { VirtualNet, netClient, netServer, netSummary } from '../support/live-net.js';

const scenario = loadScenario('live');
const FIXED = { scenario, switches: switchesFor(scenario, 'fixed'), seed: 1, durationS: null };

describe('a wire log cut by its budget', () => {
  it('is judged up to where it is complete, and the summary says where that is', () => {
    const net = new VirtualNet();
    netServer(net, FIXED);
    // 72 KiB ends the log 10.45 s in, while an ACK of a message it kept is still on its way.
    const client = netClient(net, '127.0.0.2:40002', { ...FIXED, wireLogBytes: 72 * 1024 });
    net.advance(30_000);
    client.stop('signal');
    net.advance(1_500);
    net.close();

    const cut = client.log.completeUntilUs;
    expect(cut, 'the budget fired').not.toBeNull();
    expect(judgedUntilUs(client)).toBe(cut);
    expect(judgedUntilUs(client)).toBeLessThan(client.clock.now);
    const summary = netSummary(client, FIXED, '127.0.0.2:40002');
    expect(summary.wire.notLogged).toBeGreaterThan(0);
    expect(summary.wire.logBudgetBytes).toBe(72 * 1024);
    expect(summary.wire.logCompleteUntilS).toBeCloseTo((cut as number) / 1e6, 3);
    expect(renderLiveSummary(summary)).toMatch(
      /wire log: \d+ datagrams not kept \(about [\d.]+ MiB past its 0\.1 MiB budget, --wire-log-mb\); the rules and the analysis judged the first [\d.]+ s/,
    );
    // Judged on the whole run, the messages sent just before the cut look unACKed.
    const failed = (endUs: number) =>
      evaluateConformance(client.log.records, DEFAULT_RULES, { endUs })
        .filter((r) => r.status === 'fail')
        .map((r) => r.rule);
    expect(failed(judgedUntilUs(client))).toEqual([]);
    expect(failed(client.clock.now)).not.toEqual([]);
  });
});
