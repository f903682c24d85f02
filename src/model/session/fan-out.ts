// Several observers watching one run (`trace --pcap`: the trace collector and
// the capture). Only the hooks some observer has are defined, so a session
// skips the work behind the others as it does for one observer.
import type { SessionObserver } from './observer.js';

type Hook = keyof SessionObserver;

const HOOKS: readonly Hook[] = [
  'datagramSent',
  'datagramArrived',
  'datagramDropped',
  'datagramRewritten',
  'ackProcessed',
  'duplicateReceived',
  'stateChanged',
  'connectionAccepted',
  'sample',
];

/** One observer that calls each of `observers` in order. */
export function fanOut(...observers: ReadonlyArray<SessionObserver | undefined>): SessionObserver {
  const present = observers.filter((o): o is SessionObserver => o !== undefined);
  if (present.length === 1) return present[0];
  const combined: Record<string, (...args: unknown[]) => void> = {};
  for (const hook of HOOKS) {
    const targets = present.filter((o) => typeof o[hook] === 'function');
    if (targets.length === 0) continue;
    combined[hook] = (...args: unknown[]) => {
      for (const o of targets) (o[hook] as (...a: unknown[]) => void).apply(o, args);
    };
  }
  return combined as SessionObserver;
}
