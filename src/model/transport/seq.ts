// u16 sequence numbers with serial-number arithmetic (docs/sources.md 1). The
// arithmetic lives in the codec with the other wire facts.
export { SEQ_HALF, seqDistance, seqNext } from '../../core/codec/index.js';
