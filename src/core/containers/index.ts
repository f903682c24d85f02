// General containers with no BC knowledge, built for the transport's queues: no garbage per
// message, explicit bounds. The transport decides what goes in them.
export { EntryList } from './entry-list.js';
export type { Linked } from './entry-list.js';
export { Fifo } from './fifo.js';
export { IntMap } from './int-map.js';
export { KeyedHeap, heapNode } from './keyed-heap.js';
export type { HeapNode } from './keyed-heap.js';
