export * from './time.js';
export * from './scheduler.js';
export * from './simulator.js';
export * from './random.js';
export * from './distributions.js';
export * from './limits.js';
export * from './budget.js';
