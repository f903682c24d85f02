// Metrics' public surface: the per-second recorder, its series and their trends.
export { Series } from './series.js';
export type { Bucket, SeriesSnapshot } from './series.js';
export { HEAD_SECONDS, METRICS, MetricsRecorder, seriesTrends } from './recorder.js';
export type { Metric, MetricName, PeerSeries, RecordedRun, SeriesTrend } from './recorder.js';
export { statOf } from './stat.js';
export type { Stat } from './stat.js';
