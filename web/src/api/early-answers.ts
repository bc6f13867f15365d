import type { EarlyGet, EarlyPost, EarlyRequests } from '../boot/handoff.js';

/**
 * How long after the app's start its requests may adopt an early answer. The first screen makes
 * its requests within a second or so of it; a request made later (say, after navigating away and
 * back) asks the server again, for the answer describes the page as it was when it was opened.
 * Counted from the app's start, not from the boot script's sending: the time the app's code took
 * to arrive and run (seconds on a slow network or a loaded CPU) must not make the first screen ask
 * again for what the boot script already has.
 */
const EARLY_ANSWER_WINDOW_MS = 10_000;

/** An early answer the app adopts, wrapped: a promise inside a promise would be flattened. */
export interface Adopted {
  response: Promise<Response>;
}

/**
 * The answers to requests the boot script sent before the app's code had arrived: GETs, and a
 * dashboard's first data request (a read sent as a POST). The app's client adopts one when it
 * makes the very same request (same URL, same token, for a POST the same body) instead of sending
 * it again; each is adopted at most once, and all are dropped by the first write.
 */
export class EarlyAnswers {
  private readonly gets = new Map<string, EarlyGet>();
  private readonly posts = new Map<string, EarlyPost>();
  /** When the app took the answers (`main.tsx`, as it starts). */
  private readonly startedAt: number;

  constructor(
    early: EarlyRequests,
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const get of early.gets) this.gets.set(EarlyAnswers.key(get.url, get.token), get);
    for (const post of early.posts) this.posts.set(EarlyAnswers.key(post.url, post.token), post);
    this.startedAt = now();
  }

  private static key(url: string, token: string | null): string {
    return `${token ?? ''} ${url}`;
  }

  private inWindow(): boolean {
    return this.now() - this.startedAt <= EARLY_ANSWER_WINDOW_MS;
  }

  /** The boot script's answer to this GET, if it sent one and the app started recently; later calls get null. */
  take(url: string, token: string | null): Adopted | null {
    const key = EarlyAnswers.key(url, token);
    const get = this.gets.get(key);
    if (get === undefined) return null;
    this.gets.delete(key);
    return this.inWindow() ? { response: get.response } : null;
  }

  /**
   * The boot script's answer to this read sent as a POST, if it sent the very same body and the
   * app started recently (null otherwise: the app asks itself). Waits for the boot script to have
   * decided, which it has by the time the app asks: both wait for the same definition.
   */
  async takePost(url: string, token: string | null, body: string): Promise<Adopted | null> {
    const key = EarlyAnswers.key(url, token);
    const post = this.posts.get(key);
    if (post === undefined) return null;
    this.posts.delete(key);
    if (!this.inWindow()) return null;
    const sent = await post.sent;
    return sent !== null && sent.body === body ? { response: sent.response } : null;
  }

  /** After a write the early answers may be out of date. */
  forgetAll(): void {
    this.gets.clear();
    this.posts.clear();
  }
}
