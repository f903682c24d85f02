// The layers of src/, bottom to top, as data for the checker in layers.ts.
//
// A unit is a folder of src/ (with a group, `group/folder`) or one of the two files
// at the top of src/. A unit may import a unit of a lower band only, never one of
// its own band or a higher one; units in one band are peers that know nothing of
// each other. Every folder under src/ must be placed here: the check fails on a
// folder it does not know, so a new folder is placed on purpose. version.ts is the
// bottom (anything may read the version); index.ts is the library surface (it may
// import any unit's index.ts, and nothing may import it). A group's bands are next
// to each other: the groups are the layers, bottom to top, and the bands order the
// folders inside a group.

export const LAYERS: ReadonlyArray<readonly string[]> = [
  ['version.ts'],

  // core: what knows nothing of BC's transport.
  // The event engine (clock, heap, seeded streams: knows nothing of BC), the pure BC codec,
  // the filesystem's refusals in words (for every message about a path the user typed), and
  // general containers (hash map, keyed heap, Fenwick index, linked list, ring FIFO: no BC knowledge).
  ['core/engine', 'core/codec', 'core/files', 'core/containers'],
  // Packet captures with no BC knowledge: pcap and pcapng read and written, frames (they read the engine's time units);
  // and output plumbing with no BC knowledge for every layer that writes: atomic writes and output paths (refused
  // in the files' words), JUnit XML, terminal styling, tables that keep to a width, number formatting.
  ['core/pcap', 'core/output'],

  // model: the BC transport model and what runs and observes it.
  // Link models, shared by both transport models.
  ['model/link'],
  // The BC transport (the R-Type one is kept apart from it: see APART).
  ['model/transport'],
  // The BC workload (join script, arrivals, event mix), driven through the transport's port.
  ['model/traffic'],
  // The scenario: schema, defaults, --set, built-ins; the grid of scenario variants.
  ['model/scenario'],
  // One BC session: engine, peers, links and traffic wired together; ledger, trace hash, summary.
  ['model/session'],
  // Observers of a session: the per-second metrics recorder and the wire trace.
  ['model/metrics', 'model/trace'],

  // rtype: the R-Type ACK scheme, a second transport model beside BC's, built on its links and session ledger.
  // The R-Type transport: wire codec, switches and presets, the 30 Hz tick clock, server and client.
  ['rtype/transport'],
  // The R-Type session: one server and N clients on the engine, the death workload, ledger, metrics, summary.
  ['rtype/session'],
  // The scheme scenarios: rtype-deaths, and schemes-side-by-side, which runs one workload
  // through a BC session and an R-Type session (so above both) for the reports.
  ['rtype/schemes'],

  // analysis: what reads runs and captures and says what they show.
  // The bug reproductions (they read the trace and the metrics).
  ['analysis/reproduce'],
  // Reports: the comparison, its tables, verdicts and narrative, summary.json, CSV, Markdown, HTML/SVG charts,
  // the scheme reports (they render the reproductions' results).
  ['analysis/report'],
  // Expectations, seed lists, --fail-on, determinism, JUnit (written with core/output's writer).
  ['analysis/check'],
  // BC in captures: a run written as pcapng, captures classified and analysed (against the reproductions' signatures).
  ['analysis/capture'],

  // tools: many runs at once.
  // Sweeps and compare's columns on worker threads, evaluated with check's expectations, summarised with report's tables.
  ['tools/sweep'],
  // The swarm: seeded random scenarios, invariants, repro lines.
  ['tools/swarm'],
  // Shrinking a swarm failure (with its capture).
  ['tools/shrink'],

  // Live mode: the wall clock, UDP, the proxy and the real-time peer.
  ['live'],
  // The command line.
  ['cli'],
  // The library's API.
  ['index.ts'],
];

/**
 * Units that must not import each other whatever their bands: the two transport
 * models, so no `if (rtype)` can reach BC's transport.
 */
export const APART: ReadonlyArray<readonly [string, string]> = [['model/transport', 'rtype/transport']];
