import { vi } from 'vitest';

/**
 * Runs `work` with the clock moved `ms` ahead, for the in-process server as for the test: only
 * `Date` is replaced (it keeps ticking with real time), timers and I/O stay real. Expiry tests use
 * it instead of sleeping until a short lifetime has passed.
 */
export async function withClockAhead<T>(ms: number, work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + ms, shouldAdvanceTime: true });
  try {
    return await work();
  } finally {
    vi.useRealTimers();
  }
}
