import type { EarlyGet } from '../boot/handoff.js';

/**
 * An answer older than this describes the page as it was when it was opened: a request made
 * later (say, after navigating away and back) asks the server again.
 */
const EARLY_ANSWER_MAX_AGE_MS = 10_000;

/**
 * The answers to GETs the boot script sent before the app's code had arrived. The app's client
 * adopts one when it makes the very same request (same URL, same token) instead of sending it
 * again; each is adopted at most once, and all are dropped by the first write.
 */
export class EarlyAnswers {
  private readonly pending = new Map<string, EarlyGet>();

  constructor(
    gets: readonly EarlyGet[],
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const get of gets) this.pending.set(EarlyAnswers.key(get.url, get.token), get);
  }

  private static key(url: string, token: string | null): string {
    return `${token ?? ''} ${url}`;
  }

  /** The boot script's answer to this GET, if it sent one recently; later calls get null. */
  take(url: string, token: string | null): Promise<Response> | null {
    const key = EarlyAnswers.key(url, token);
    const get = this.pending.get(key);
    if (get === undefined) return null;
    this.pending.delete(key);
    return this.now() - get.sentAt <= EARLY_ANSWER_MAX_AGE_MS ? get.response : null;
  }

  /** After a write the early answers may be out of date. */
  forgetAll(): void {
    this.pending.clear();
  }
}
