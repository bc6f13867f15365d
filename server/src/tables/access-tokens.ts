import type { Kysely } from 'kysely';
import type { AccessTokensTable, Tables } from '../db/tables.js';

/** A token with the account state its use depends on. */
export type AccessTokenWithUser = AccessTokensTable & {
  user_role: 'admin' | 'user';
  user_disabled: number;
  user_is_temporary: number;
  user_expires_at: string | null;
};

/**
 * Every query on `access_tokens` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const accessTokenRows = {
  /** The token whose secret has this hash, with its user as it is now (one indexed join). */
  findByHash(db: Kysely<Tables>, tokenHash: string): Promise<AccessTokenWithUser | undefined> {
    return db
      .selectFrom('access_tokens')
      .innerJoin('users', 'users.id', 'access_tokens.user_id')
      .selectAll('access_tokens')
      .select([
        'users.role as user_role',
        'users.disabled as user_disabled',
        'users.is_temporary as user_is_temporary',
        'users.expires_at as user_expires_at',
      ])
      .where('access_tokens.token_hash', '=', tokenHash)
      .executeTakeFirst();
  },

  /** The tokens of one user, filtered only: `paginate` adds the order and the page. */
  ofUserFiltered(db: Kysely<Tables>, userId: string) {
    return db.selectFrom('access_tokens').where('user_id', '=', userId);
  },

  async insert(db: Kysely<Tables>, row: AccessTokensTable): Promise<void> {
    await db.insertInto('access_tokens').values(row).execute();
  },

  /** Deletes the tokens that expired before `now` (they can no longer sign anything in); answers how many. */
  async deleteExpired(db: Kysely<Tables>, now: string): Promise<number> {
    const result = await db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Deletes one of the user's tokens; false when the user has no such token. */
  async deleteOfUser(db: Kysely<Tables>, id: string, userId: string): Promise<boolean> {
    const result = await db
      .deleteFrom('access_tokens')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /**
   * Records a use unless one was recorded since `notBefore`: one conditional update, so a burst of
   * requests (on any number of replicas) writes the row about once a minute at most.
   */
  async markUsed(db: Kysely<Tables>, id: string, at: string, from: string, notBefore: string): Promise<void> {
    await db
      .updateTable('access_tokens')
      .set({ last_used_at: at, last_used_from: from })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
      .execute();
  },
};
