// CPU time of this test process, for tests that show a command did no work (refused before it ran
// anything). A machine busy with other work stretches wall time, not the work a process does, so
// these bounds hold on a loaded machine (vitest runs each test file in a process of its own).

/** User + system CPU time this process has used, in ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Runs `fn` and returns its value with the CPU time this process spent meanwhile, in ms. */
export async function withCpuMs<T>(fn: () => Promise<T> | T): Promise<{ value: T; cpuMs: number }> {
  const before = cpuMs();
  const value = await fn();
  return { value, cpuMs: cpuMs() - before };
}
