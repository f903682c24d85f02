// u16 sequence numbers with serial-number arithmetic (DECISIONS.md 1). The
// arithmetic lives in the codec with the other wire facts (issue 17, item 2).
export { SEQ_HALF, seqDistance, seqNext } from '../codec/index.js';
