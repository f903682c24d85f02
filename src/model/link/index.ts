export * from './config.js';
export { Link } from './link.js';
export type { LinkObserver } from './link.js';
export { validateLinkConfig, MIN_BANDWIDTH_BYTES_PER_SECOND, MIN_SLOT_MS } from './validate.js';
