// A map from small non-negative integers (packed message keys) to values, by
// open addressing with linear probing and backward-shift deletion. The queues
// add and remove a key per reliable message; a JS Map under that churn rehashes
// into a new table every few operations, which cost ~0.3 µs and garbage per
// message. This one allocates only when it grows.

const EMPTY = -1;
const MIN_CAPACITY = 16;
/** Explicit bound: the owners' own limits keep them far below (a key per queued entry). */
const MAX_INT_MAP_CAPACITY = 1 << 22;

export class IntMap<V> {
  private keys = new Int32Array(MIN_CAPACITY).fill(EMPTY);
  private values: Array<V | undefined> = new Array<V | undefined>(MIN_CAPACITY).fill(undefined);
  private mask = MIN_CAPACITY - 1;
  /** Fibonacci hashing: a key's home slot is the top log2(capacity) bits of key x 2^32/phi. */
  private shift = 32 - Math.log2(MIN_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: number): V | undefined {
    for (let i = this.home(key); ; i = (i + 1) & this.mask) {
      const k = this.keys[i];
      if (k === key) return this.values[i];
      if (k === EMPTY) return undefined;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets a value (never undefined: get's "absent"). */
  set(key: number, value: V): void {
    if (!(key >= 0 && key <= 0x7fffffff && Number.isInteger(key)))
      throw new Error(`int map: key ${key} is not a non-negative int32`);
    if (value === undefined) throw new Error('int map: undefined is not a value');
    for (let i = this.home(key); ; i = (i + 1) & this.mask) {
      const k = this.keys[i];
      if (k === key) {
        this.values[i] = value;
        return;
      }
      if (k === EMPTY) {
        this.keys[i] = key;
        this.values[i] = value;
        this.count++;
        if (this.count * 2 > this.keys.length) this.grow();
        return;
      }
    }
  }

  delete(key: number): boolean {
    const mask = this.mask;
    let i = this.home(key);
    for (; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === key) break;
      if (k === EMPTY) return false;
    }
    // Backward shift: pull later members of the probe run into the hole, so no tombstones.
    let hole = i;
    for (let j = (i + 1) & mask; this.keys[j] !== EMPTY; j = (j + 1) & mask) {
      const home = this.home(this.keys[j]);
      // j's entry may move to the hole only if its home is not within (hole, j].
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        this.keys[hole] = this.keys[j];
        this.values[hole] = this.values[j];
        hole = j;
      }
    }
    this.keys[hole] = EMPTY;
    this.values[hole] = undefined;
    this.count--;
    return true;
  }

  /** Values in slot order (not insertion order): for audits and tests only. */
  *entries(): IterableIterator<[number, V]> {
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] !== EMPTY) yield [this.keys[i], this.values[i] as V];
  }

  private home(key: number): number {
    return Math.imul(key, 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldKeys.length * 2;
    if (capacity > MAX_INT_MAP_CAPACITY) throw new Error(`int map: more than ${MAX_INT_MAP_CAPACITY / 2} keys`);
    this.keys = new Int32Array(capacity).fill(EMPTY);
    this.values = new Array<V | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    this.shift--;
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) if (oldKeys[i] !== EMPTY) this.set(oldKeys[i], oldValues[i] as V);
  }
}
