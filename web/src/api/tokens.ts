import { type SessionAnswer, sessionAnswerSchema } from '@service/common';
import { SESSION_STORAGE_KEY } from './wire.js';

export interface StoredSession {
  access_token: string;
  refresh_token: string;
  user: SessionAnswer['user'];
}

type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function parse(raw: string | null): StoredSession | null {
  if (raw === null) return null;
  try {
    const parsed = sessionAnswerSchema
      .pick({ access_token: true, refresh_token: true, user: true })
      .safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function readFrom(storage: KeyValueStorage | null): StoredSession | null {
  try {
    return parse(storage?.getItem(SESSION_STORAGE_KEY) ?? null);
  } catch {
    return null;
  }
}

/**
 * Tokens in memory, mirrored to the browser's persistent storage (localStorage) so the session
 * outlives the tab: a link opened in a new tab, or after the browser was restarted, is still
 * signed in while the refresh token is valid ("remember me"; sign-out forgets it). Every tab
 * shares the stored tokens and follows another tab's refresh or sign-out (`followOtherTabs`).
 */
export class TokenStore {
  private current: StoredSession | null;
  private readonly listeners = new Set<(session: StoredSession | null) => void>();

  /**
   * `earlier`: where older versions kept the session (sessionStorage); a session found only there
   * is moved to `storage`, so an upgrade signs nobody out.
   */
  constructor(
    private readonly storage: KeyValueStorage | null,
    earlier: KeyValueStorage | null = null,
  ) {
    this.current = readFrom(storage);
    const moved = this.current === null ? readFrom(earlier) : null;
    if (moved !== null) this.set(moved);
    try {
      if (storage !== null) earlier?.removeItem(SESSION_STORAGE_KEY);
    } catch {
      // Blocked storage: nothing to clean up.
    }
  }

  get(): StoredSession | null {
    return this.current;
  }

  /** Reads the stored session again (another tab may have refreshed or ended it); answers it. */
  reload(): StoredSession | null {
    if (this.storage === null) return this.current;
    const stored = readFrom(this.storage);
    if (stored?.access_token !== this.current?.access_token) this.adopt(stored);
    return this.current;
  }

  set(session: StoredSession | null): void {
    try {
      if (session === null) this.storage?.removeItem(SESSION_STORAGE_KEY);
      else this.storage?.setItem(SESSION_STORAGE_KEY, JSON.stringify(session));
    } catch {
      // Storage full or blocked: the session still lives in memory.
    }
    this.adopt(session);
  }

  /** Follows the session that other tabs store: their refreshes, their sign-in and sign-out. */
  followOtherTabs(target: Pick<Window, 'addEventListener'>): void {
    target.addEventListener('storage', (event) => {
      if (event.key === SESSION_STORAGE_KEY || event.key === null) this.reload();
    });
  }

  subscribe(listener: (session: StoredSession | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private adopt(session: StoredSession | null): void {
    this.current = session;
    for (const listener of this.listeners) listener(session);
  }
}
