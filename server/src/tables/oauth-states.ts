import type { Insertable, Kysely, Selectable } from 'kysely';
import type { OAuthStatesTable, Tables } from '../db/tables.js';

/**
 * Every query on `oauth_states`, the pending sign-ins through the identity provider
 * (docs/architecture.md "Table owners").
 */
export const oauthStateRows = {
  async insert(db: Kysely<Tables>, row: Insertable<OAuthStatesTable>): Promise<void> {
    await db.insertInto('oauth_states').values(row).execute();
  },

  /**
   * Spends the state if it is unspent and unexpired and answers its row; of two racing callbacks
   * with the same state, one conditional update lets exactly one through.
   */
  async spend(db: Kysely<Tables>, stateHash: string, now: string): Promise<Selectable<OAuthStatesTable> | undefined> {
    const spent = await db
      .updateTable('oauth_states')
      .set({ used_at: now })
      .where('state_hash', '=', stateHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) return undefined;
    return db.selectFrom('oauth_states').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
  },

  /** Deletes the states past their expiry; answers how many. */
  async deleteExpired(db: Kysely<Tables>, now: string): Promise<number> {
    const result = await db.deleteFrom('oauth_states').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
