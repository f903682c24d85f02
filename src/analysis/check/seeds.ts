// `check --seeds`: a list of seeds to sweep, "1..20", "5..9", "1,4,9" or a mix
// ("1..10,42"). Bounded, so a typo cannot ask for four billion runs.

/** The most seeds one `check --seeds` may run. */
export const MAX_SEEDS = 10_000;
const MAX_SEED = 4294967295;

const EXAMPLE = 'expected seeds like 1..20, 5..9 or 1,4,9';

/** The seeds in the order given, or the reason the text is not a seed list (one line, without the flag name). */
export function parseSeedList(text: string): { seeds: number[] } | { problem: string } {
  const items = text.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) return { problem: `${EXAMPLE}, got ${JSON.stringify(text)}` };
  const ranges: Array<[number, number]> = [];
  let count = 0;
  for (const item of items) {
    const m = /^(\d+)(?:\.\.(\d+))?$/.exec(item);
    if (m === null)
      return {
        problem: `${EXAMPLE}, got ${JSON.stringify(text)} (${JSON.stringify(item)} is neither a seed nor a range a..b)`,
      };
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (const n of [from, to])
      if (n > MAX_SEED) return { problem: `a seed is a whole number 0..${MAX_SEED}, got ${JSON.stringify(text)}` };
    if (to < from)
      return { problem: `the range ${item} runs backwards (write ${m[2]}..${m[1]}), got ${JSON.stringify(text)}` };
    count += to - from + 1;
    // Counted before any list is built: "1..4294967295" is refused without allocating it.
    if (count > MAX_SEEDS)
      return { problem: `at most ${MAX_SEEDS.toLocaleString('en-US')} seeds per check, got ${JSON.stringify(text)}` };
    ranges.push([from, to]);
  }
  const seeds: number[] = [];
  const seen = new Set<number>();
  for (const [from, to] of ranges) {
    for (let n = from; n <= to; n++) {
      if (seen.has(n)) return { problem: `seed ${n} is given twice in ${JSON.stringify(text)}` };
      seen.add(n);
      seeds.push(n);
    }
  }
  return { seeds };
}

/** "1..20" for a run of consecutive seeds, else "1, 4, 9", cut after `max` seeds with a count of the rest. */
export function describeSeeds(seeds: readonly number[], max = 20): string {
  if (seeds.length > 2 && seeds.every((s, i) => i === 0 || s === seeds[i - 1] + 1))
    return `${seeds[0]}..${seeds[seeds.length - 1]}`;
  const shown = seeds.slice(0, max).join(', ');
  return seeds.length > max ? `${shown} … and ${(seeds.length - max).toLocaleString('en-US')} more` : shown;
}
