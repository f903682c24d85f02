// The proxy's random streams: random decisions come from the
// same named seeded streams, indexed by datagram number per direction, so a
// replay of the same packet order makes the same decisions. A Link takes its
// streams once, at construction; each one handed out here draws, for datagram
// n of its direction, from namedStream(seed, `${name}#${n}`), created lazily on
// the first draw for that datagram. Real arrival times vary from run to run;
// datagram numbers do not, so decisions depend on the packet order alone.
import { namedStream } from '../../core/engine/index.js';
import type { RandomStream, StreamSource } from '../../core/engine/index.js';

export class IndexedStreams implements StreamSource {
  private readonly taken = new Set<string>();
  private index = 0;

  constructor(readonly seed: number | string) {}

  /** The datagram number (0-based, per direction) the next draws are for; set before each Link.send. */
  setIndex(n: number): void {
    this.index = n;
  }

  get currentIndex(): number {
    return this.index;
  }

  stream(name: string): RandomStream {
    // Same wiring rule as RandomStreams: two users of one name would share draws.
    if (this.taken.has(name)) throw new Error(`random stream "${name}" requested twice`);
    this.taken.add(name);
    let forIndex = -1;
    let current: RandomStream | null = null;
    return {
      name,
      next: () => {
        if (current === null || forIndex !== this.index) {
          forIndex = this.index;
          current = namedStream(this.seed, `${name}#${forIndex}`);
        }
        return current.next();
      },
    };
  }
}
