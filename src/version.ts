// The package version, stamped into reports and summaries.
export const VERSION = '0.1.0';
