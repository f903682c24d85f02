// Shrinking: a failing run down to the fewest faults that still fail the same way.
export { shrink, ShrinkError, DEFAULT_BUDGET } from './shrink.js';
export type { ShrinkInput, ShrinkResult } from './shrink.js';
export { ddmin } from './ddmin.js';
export { parseShrinkLine } from './input.js';
export { filesFor, finishDocument, writeShrunk } from './output.js';
