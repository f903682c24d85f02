// Types for the one seedrandom generator random.ts imports by path (the package's
// own types cover only its index): seedrandom.alea, the same function.
declare module 'seedrandom/lib/alea.js' {
  interface AleaState {
    s0: number;
    s1: number;
    s2: number;
    c: number;
  }
  const alea: (seed: string, options: { state: true }) => (() => number) & { state(): AleaState };
  export default alea;
}
