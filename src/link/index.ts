export * from './config.js';
export { Link } from './link.js';
export type { LinkObserver } from './link.js';
export { validateLinkConfig } from './validate.js';
export { messageMatches } from './drop-rules.js';
export type { FaultListStats, LinkDecisions } from './faults.js';
