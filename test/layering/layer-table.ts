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
  // The event engine (clock, heap, seeded streams: knows nothing of BC) and the pure BC codec.
  ['engine', 'codec'],
  // Packet captures with no BC knowledge: pcap and pcapng read and written, frames (they read the engine's time units).
  ['pcap'],
  // Link models, shared by both transport models.
  ['link'],
  // The two transport models, peers: the BC transport and the R-Type scheme (see APART).
  ['transport', 'rtype'],
  // The BC workload (join script, arrivals, event mix), driven through the transport's port.
  ['traffic'],
  // The scenario: schema, defaults, --set, built-ins; the grid of scenario variants.
  ['scenario'],
  // One BC session: engine, peers, links and traffic wired together; ledger, trace hash, summary.
  ['session'],
  // Observers of a session: the per-second metrics recorder and the wire trace.
  ['metrics', 'trace'],
  // The R-Type session: the session layer of the R-Type model, above the shared
  // ledger (session) and metrics it builds on, below everything that runs or reports it.
  ['rtype-session'],
  // The bug reproductions (they read the trace and the metrics), and, their peer, the
  // scheme scenarios: rtype-deaths, and schemes-side-by-side, which runs one
  // workload through a BC session and an R-Type session (so above both) for the reports.
  ['reproduce', 'schemes'],
  // Reports: tables, summary.json, CSV, Markdown, HTML; atomic writes and output paths
  // (they render the reproductions' results).
  ['report'],
  // Expectations, seed lists, --fail-on, determinism, JUnit (written with the report's writer).
  ['check'],
  // Sweeps and compare's columns on worker threads, evaluated with check's expectations, summarised with report's tables.
  ['sweep'],
  // BC in captures: a run written as pcapng, captures classified and analysed (against the reproductions' signatures); the swarm.
  ['capture', 'swarm'],
  // Shrinking a swarm failure (with its capture).
  ['shrink'],
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
export const APART: ReadonlyArray<readonly [string, string]> = [['transport', 'rtype']];
