import type { EarlyGet } from '../boot/handoff.js';

/**
 * How long after the app's start its requests may adopt an early answer. The first screen makes
 * its requests within a second or so of it; a request made later (say, after navigating away and
 * back) asks the server again, for the answer describes the page as it was when it was opened.
 * Counted from the app's start, not from the boot script's sending: the time the app's code took
 * to arrive and run (seconds on a slow network or a loaded CPU) must not make the first screen ask
 * again for what the boot script already has.
 */
const EARLY_ANSWER_WINDOW_MS = 10_000;

/**
 * The answers to GETs the boot script sent before the app's code had arrived. The app's client
 * adopts one when it makes the very same request (same URL, same token) instead of sending it
 * again; each is adopted at most once, and all are dropped by the first write.
 */
export class EarlyAnswers {
  private readonly pending = new Map<string, EarlyGet>();
  /** When the app took the answers (`main.tsx`, as it starts). */
  private readonly startedAt: number;

  constructor(
    gets: readonly EarlyGet[],
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const get of gets) this.pending.set(EarlyAnswers.key(get.url, get.token), get);
    this.startedAt = now();
  }

  private static key(url: string, token: string | null): string {
    return `${token ?? ''} ${url}`;
  }

  /** The boot script's answer to this GET, if it sent one and the app started recently; later calls get null. */
  take(url: string, token: string | null): Promise<Response> | null {
    const key = EarlyAnswers.key(url, token);
    const get = this.pending.get(key);
    if (get === undefined) return null;
    this.pending.delete(key);
    return this.now() - this.startedAt <= EARLY_ANSWER_WINDOW_MS ? get.response : null;
  }

  /** After a write the early answers may be out of date. */
  forgetAll(): void {
    this.pending.clear();
  }
}
