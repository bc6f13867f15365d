import type { ExpressionBuilder, Insertable, Kysely } from 'kysely';
import type { RefreshTokensTable, SessionsTable, Tables } from '../db/tables.js';

/** A session is over when it expired or was revoked. */
function ended(now: string) {
  return (eb: ExpressionBuilder<Tables, 'sessions'>) =>
    eb.or([eb('expires_at', '<=', now), eb('revoked_at', 'is not', null)]);
}

/**
 * Every query on `sessions` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const sessionRows = {
  /**
   * The per-request session check with its user, compiled once by the caller (it runs on every
   * authenticated request, and only its parameter, the session id, changes).
   */
  lookup(db: Kysely<Tables>) {
    return db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .select(['sessions.revoked_at as session_revoked_at', 'sessions.expires_at as session_expires_at'])
      .where('sessions.id', '=', '')
      .compile();
  },

  async insert(db: Kysely<Tables>, row: Insertable<SessionsTable>): Promise<void> {
    await db.insertInto('sessions').values(row).execute();
  },

  async extend(db: Kysely<Tables>, id: string, expiresAt: string): Promise<void> {
    await db.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
  },

  /** Revokes the session unless it already was (its first reason stays). */
  async revoke(db: Kysely<Tables>, id: string, reason: string, now: string): Promise<void> {
    await db
      .updateTable('sessions')
      .set({ revoked_at: now, revoked_reason: reason })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  },

  /** Revokes every open session of the user. */
  async revokeOfUser(db: Kysely<Tables>, userId: string, reason: string, now: string): Promise<void> {
    await db
      .updateTable('sessions')
      .set({ revoked_at: now, revoked_reason: reason })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  },

  /** The user's sessions neither revoked nor expired. */
  async countActive(db: Kysely<Tables>, userId: string, now: string): Promise<number> {
    const row = await db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** The ids of the sessions that expired or were revoked, as a subquery. */
  endedIds(db: Kysely<Tables>, now: string) {
    return db.selectFrom('sessions').select('id').where(ended(now));
  },

  /** Deletes the sessions that expired or were revoked; answers how many. */
  async deleteEnded(db: Kysely<Tables>, now: string): Promise<number> {
    const result = await db.deleteFrom('sessions').where(ended(now)).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};

/** Every query on `refresh_tokens` (docs/architecture.md "Table owners"). */
export const refreshTokenRows = {
  async insert(db: Kysely<Tables>, row: Insertable<RefreshTokensTable>): Promise<void> {
    await db.insertInto('refresh_tokens').values(row).execute();
  },

  /**
   * Spends the token if it is unspent and unexpired, in one conditional update: of two racing
   * uses exactly one is answered true.
   */
  async spend(db: Kysely<Tables>, tokenHash: string, now: string): Promise<boolean> {
    const spent = await db
      .updateTable('refresh_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(spent.numUpdatedRows) === 1;
  },

  find(db: Kysely<Tables>, tokenHash: string) {
    return db
      .selectFrom('refresh_tokens')
      .select(['session_id', 'used_at'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
  },

  /** Deletes the tokens of the sessions that expired or were revoked; answers how many. */
  async deleteOfEndedSessions(db: Kysely<Tables>, now: string): Promise<number> {
    const result = await db
      .deleteFrom('refresh_tokens')
      .where('session_id', 'in', sessionRows.endedIds(db, now))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
