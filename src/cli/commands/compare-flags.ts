// What `bcsim compare` takes, shared by both of its forms: BC scenarios (compare.ts)
// and scheme scenarios (scheme-compare.ts), which compare.ts hands on.

export interface CompareFlags {
  duration?: string;
  loss?: string;
  mode?: string;
  seed?: string;
  /** The report folder; `--out-dir` on the command line, `--out` its old spelling. */
  out?: string;
  outDir?: string;
  json?: boolean;
  wide?: boolean;
  causes?: boolean;
  sensitivity?: boolean;
  set?: string[];
  switch?: string[];
  config?: string[];
  a?: string;
  b?: string;
  failOn?: string[];
  pcap?: string;
  pcapPlaintext?: boolean;
  jobs?: string;
}

/** Where an experiment's report goes unless --out says otherwise: never the committed reports/<scenario>/. */
export const EXPERIMENTS_DIR = 'reports/experiments';
