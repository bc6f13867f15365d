import type { UserRow } from '../db/tables.js';
import type { InvalidationChannel } from './session-invalidations.js';

/** A session and its user as last read from the database. */
export interface CachedSession {
  user: UserRow;
  /** When the session or, for a temporary user, the user expires, whichever comes first. */
  usableUntilMs: number;
}

interface Entry extends CachedSession {
  readAtMs: number;
}

const ENTRY_LIMIT = 10_000;
/** How often, at most, to ask SQLite whether another process has committed. */
const OTHERS_CHECK_MS = 25;

/**
 * A short per-process memory of sessions found valid, so that a burst of requests on one session
 * (a dashboard loading its components) does not read the same rows for each request.
 *
 * The database stays the only truth; this cache only delays what it has not been told about:
 * - what this process changes (sign-out, revocation, a user disabled, demoted or deleted) is
 *   forgotten here at once, and announced to the other processes through the invalidation channel
 *   (PostgreSQL NOTIFY), which forget it as soon as the notice arrives and acknowledge it; the
 *   change is answered once they have;
 * - on SQLite, a commit by another process sharing the file empties the cache within
 *   OTHERS_CHECK_MS (`changesByOthers`, SQLite's data_version: asking costs a read lock, about a
 *   microsecond, too much for every request);
 * - an entry is never trusted longer than `ttlMs`, the bound docs/architecture.md "Sessions" allows ("within one
 *   access-token lifetime at most"), which is what remains while a PostgreSQL notice is on its way
 *   or its connection is down;
 * - a change that arrives while a read is in flight wins: the read's result is not kept.
 * Expiry times are checked on every use by the caller, so a session or temporary user that
 * expires is refused on time whatever the cache holds.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation, so a read that started before one is not cached after it. */
  private generation = 0;
  private othersVersion: number | undefined;
  private othersCheckedAtMs = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly channel: InvalidationChannel | null,
    private readonly changesByOthers?: () => number,
  ) {
    this.othersVersion = changesByOthers?.();
    channel?.subscribe({
      session: (sessionId) => this.dropSession(sessionId),
      user: (userId) => this.dropUser(userId),
      // Notices may have been missed while disconnected: trust nothing read before.
      reset: () => this.clear(),
    });
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The cached session, if fresh; `undefined` means "read the database". */
  get(sessionId: string, nowMs: number): CachedSession | undefined {
    if (this.entries.size === 0) return undefined;
    if (nowMs - this.othersCheckedAtMs >= OTHERS_CHECK_MS) {
      this.othersCheckedAtMs = nowMs;
      this.noticeOthersChanges();
    }
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return undefined;
    if (nowMs - entry.readAtMs >= this.ttlMs) {
      this.entries.delete(sessionId);
      return undefined;
    }
    return entry;
  }

  /** A token to pass to `set`, taken before reading the database. */
  beginRead(): number {
    this.noticeOthersChanges();
    return this.generation;
  }

  set(sessionId: string, session: CachedSession, readToken: number, nowMs: number): void {
    if (!this.enabled) return;
    this.noticeOthersChanges();
    if (readToken !== this.generation) return;
    if (this.entries.size >= ENTRY_LIMIT) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(sessionId, { ...session, readAtMs: nowMs });
  }

  /** A session ended here: forget it, and tell the other processes. */
  async forgetSession(sessionId: string): Promise<void> {
    this.dropSession(sessionId);
    await this.channel?.publish({ kind: 'session', id: sessionId });
  }

  /** A user changed here (disabled, role, deleted): forget their sessions, and tell the others. */
  async forgetUser(userId: string): Promise<void> {
    this.dropUser(userId);
    await this.channel?.publish({ kind: 'user', id: userId });
  }

  private dropSession(sessionId: string): void {
    this.generation++;
    this.entries.delete(sessionId);
  }

  private dropUser(userId: string): void {
    this.generation++;
    for (const [sessionId, entry] of this.entries) {
      if (entry.user.id === userId) this.entries.delete(sessionId);
    }
  }

  /** Another process sharing the SQLite file committed something: what it was is unknown. */
  private noticeOthersChanges(): void {
    if (this.changesByOthers === undefined) return;
    const version = this.changesByOthers();
    if (version !== this.othersVersion) {
      this.othersVersion = version;
      this.clear();
    }
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
