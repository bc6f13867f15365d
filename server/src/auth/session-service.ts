import type { SessionAnswer } from '@service/common';
import { CompiledQuery } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { AuditLog } from '../audit/service.js';
import type { Database } from '../db/database.js';
import type { UserRow } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { DomainError } from '../errors.js';
import { refreshTokenRows, sessionRows } from '../tables/sessions.js';
import { verifyPassword } from '../users/passwords.js';
import { presentUser } from '../users/presenters.js';
import { UsersRepository } from '../users/repository.js';
import type { AccessTokens } from './access-tokens.js';
import { hashSecret, randomSecret } from './secrets.js';
import type { CachedSession, SessionCache } from './session-cache.js';

export interface AuthenticatedUser {
  user: UserRow;
  sessionId: string;
}

const invalidRefresh = () => new DomainError('token_invalid', 'the refresh token is invalid, expired or already used');

/**
 * Sessions: sign-in, refresh-token rotation with reuse detection, sign-out, and turning an access
 * token into the user behind it. Sessions live in the database so any replica can serve any step.
 */
export class SessionService {
  private readonly users: UsersRepository;
  /**
   * The per-request session check, built and compiled once: it runs on every authenticated
   * request, and only its parameter changes.
   */
  private readonly sessionLookup;

  constructor(
    private readonly database: Database,
    private readonly tokens: AccessTokens,
    private readonly refreshTtlSeconds: number,
    private readonly audit: AuditLog,
    private readonly cache: SessionCache,
  ) {
    this.users = new UsersRepository(database.db);
    this.sessionLookup = sessionRows.lookup(database.db);
  }

  async login(email: string, password: string, clientAddress: string): Promise<SessionAnswer> {
    const user = await this.users.findByEmail(email);
    // Always run one password verification so unknown emails take as long as wrong passwords.
    const passwordOk = await verifyPassword(user?.password_hash ?? null, password);
    const audited = {
      subjectUserId: user?.id ?? null,
      subjectEmail: user?.email ?? email.slice(0, 254),
      clientAddress,
    };
    if (!user || !passwordOk || !isUsable(user)) {
      const reason = !user ? 'unknown_email' : !passwordOk ? 'wrong_password' : 'account_unusable';
      await this.audit.record({ ...audited, type: 'login.failed', details: { reason } });
      throw new DomainError('invalid_credentials', 'the email or password is wrong');
    }
    await this.audit.record({ ...audited, type: 'login.succeeded' });
    return this.start(user);
  }

  /** Opens a session for a user and answers with its first token pair. */
  async start(user: UserRow): Promise<SessionAnswer> {
    const sessionId = uuidv7();
    const now = Date.now();
    const expiresAt = this.sessionExpiry(user, now);
    const refreshToken = randomSecret();
    await this.database.db.transaction().execute(async (trx) => {
      await sessionRows.insert(trx, {
        id: sessionId,
        user_id: user.id,
        created_at: new Date(now).toISOString(),
        expires_at: expiresAt,
        revoked_at: null,
        revoked_reason: null,
      });
      await refreshTokenRows.insert(trx, {
        token_hash: hashSecret(refreshToken),
        session_id: sessionId,
        created_at: new Date(now).toISOString(),
        expires_at: expiresAt,
        used_at: null,
      });
    });
    return this.answer(user, sessionId, refreshToken);
  }

  /**
   * Spends a refresh token and hands out a new pair for the same session. Spending is one
   * conditional update, so of two racing uses exactly one wins; presenting an already spent token
   * means it was copied, and the whole session is revoked.
   */
  async refresh(refreshToken: string): Promise<SessionAnswer> {
    const tokenHash = hashSecret(refreshToken);
    const now = isoNow();
    const spent = await refreshTokenRows.spend(this.database.db, tokenHash, now);
    const token = await refreshTokenRows.find(this.database.db, tokenHash);
    if (!token) throw invalidRefresh();
    if (!spent) {
      if (token.used_at !== null) await this.revokeSession(token.session_id, 'refresh_token_reuse');
      throw invalidRefresh();
    }

    const session = await this.readSession(token.session_id, Date.now());
    if (!isLive(session, Date.now())) throw invalidRefresh();
    const { user } = session;

    const nextToken = randomSecret();
    const expiresAt = this.sessionExpiry(user, Date.now());
    await this.database.db.transaction().execute(async (trx) => {
      await sessionRows.extend(trx, token.session_id, expiresAt);
      await refreshTokenRows.insert(trx, {
        token_hash: hashSecret(nextToken),
        session_id: token.session_id,
        created_at: now,
        expires_at: expiresAt,
        used_at: null,
      });
    });
    return this.answer(user, token.session_id, nextToken);
  }

  async revokeSession(sessionId: string, reason: string): Promise<void> {
    await sessionRows.revoke(this.database.db, sessionId, reason, isoNow());
    await this.cache.forgetSession(sessionId);
  }

  /**
   * The user behind an access token. The session and user come from the database (one indexed
   * join), or from the short session cache, which this process empties at once on sign-out,
   * revocation and user changes and other processes empty when notified (see SessionCache).
   * Expiry is checked on every call.
   */
  async authenticate(accessToken: string): Promise<AuthenticatedUser> {
    const claims = await this.tokens.verify(accessToken);
    const nowMs = Date.now();
    let session: CachedSession | null | undefined = this.cache.get(claims.sessionId, nowMs);
    // A cached answer may only say yes; a no (say, a session since extended by a refresh) is
    // asked of the database.
    if (!isLive(session, nowMs) || session.user.id !== claims.userId) {
      session = await this.readSession(claims.sessionId, nowMs);
    }
    if (!isLive(session, nowMs) || session.user.id !== claims.userId) {
      throw new DomainError('token_invalid', 'the session has ended');
    }
    return { user: session.user, sessionId: claims.sessionId };
  }

  /** The session and its user, or null when there is no such live (unrevoked) session. */
  private async readSession(sessionId: string, nowMs: number): Promise<CachedSession | null> {
    const readToken = this.cache.beginRead();
    const { rows } = await this.database.db.executeQuery(
      CompiledQuery.raw(this.sessionLookup.sql, [sessionId]) as typeof this.sessionLookup,
    );
    const row = rows[0];
    if (!row || row.session_revoked_at !== null) return null;
    const { session_revoked_at: _revoked, session_expires_at: sessionExpiresAt, ...user } = row;
    // Parsed once here, so a cached session is judged with a number comparison per request.
    const sessionEndMs = Date.parse(sessionExpiresAt);
    const usableUntilMs = user.expires_at === null ? sessionEndMs : Math.min(sessionEndMs, Date.parse(user.expires_at));
    const session = { user, usableUntilMs };
    this.cache.set(sessionId, session, readToken, nowMs);
    return session;
  }

  private sessionExpiry(user: UserRow, nowMs: number): string {
    const sliding = isoAfterSeconds(this.refreshTtlSeconds, nowMs);
    // A temporary user's session never outlives the user.
    return user.expires_at !== null && user.expires_at < sliding ? user.expires_at : sliding;
  }

  private async answer(user: UserRow, sessionId: string, refreshToken: string): Promise<SessionAnswer> {
    const notAfter = user.expires_at === null ? undefined : Date.parse(user.expires_at);
    const access = await this.tokens.sign(user.id, sessionId, notAfter);
    return {
      access_token: access.token,
      refresh_token: refreshToken,
      token_type: 'bearer',
      expires_in: access.expiresIn,
      user: presentUser(user),
    };
  }
}

function isUsable(user: UserRow): boolean {
  return user.disabled === 0 && (user.expires_at === null || user.expires_at > isoNow());
}

/** An open session of an enabled user, neither of them expired. */
function isLive(session: CachedSession | null | undefined, nowMs: number): session is CachedSession {
  return session != null && session.user.disabled === 0 && session.usableUntilMs > nowMs;
}
