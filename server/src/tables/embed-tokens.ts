import type { Kysely } from 'kysely';
import type { EmbedTokensTable, Tables } from '../db/tables.js';

/**
 * Every query on `embed_tokens` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const embedTokenRows = {
  /** The token whose secret has this hash. */
  findByHash(db: Kysely<Tables>, tokenHash: string): Promise<EmbedTokensTable | undefined> {
    return db.selectFrom('embed_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  },

  /** The token if it is one of the dashboard's, with whether it was revoked. */
  findOfDashboard(db: Kysely<Tables>, id: string, dashboardId: string) {
    return db
      .selectFrom('embed_tokens')
      .select(['id', 'revoked_at'])
      .where('id', '=', id)
      .where('dashboard_id', '=', dashboardId)
      .executeTakeFirst();
  },

  /** The tokens of one dashboard, filtered only: `paginate` adds the order and the page. */
  ofDashboardFiltered(db: Kysely<Tables>, dashboardId: string) {
    return db.selectFrom('embed_tokens').where('dashboard_id', '=', dashboardId);
  },

  /** How many tokens of the project's dashboards still work (neither revoked nor expired). */
  async countActiveInProject(db: Kysely<Tables>, projectId: string, now: string): Promise<number> {
    const row = await db
      .selectFrom('embed_tokens')
      .innerJoin('dashboards', 'dashboards.id', 'embed_tokens.dashboard_id')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('dashboards.project_id', '=', projectId)
      .where('embed_tokens.revoked_at', 'is', null)
      .where('embed_tokens.expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** How many tokens the user made still work (neither revoked nor expired). */
  async countActiveBy(db: Kysely<Tables>, userId: string, now: string): Promise<number> {
    const row = await db
      .selectFrom('embed_tokens')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('created_by', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  async insert(db: Kysely<Tables>, row: EmbedTokensTable): Promise<void> {
    await db.insertInto('embed_tokens').values(row).execute();
  },

  async markUsed(db: Kysely<Tables>, id: string, now: string): Promise<void> {
    await db.updateTable('embed_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
  },

  async revoke(db: Kysely<Tables>, id: string, now: string): Promise<void> {
    await db.updateTable('embed_tokens').set({ revoked_at: now }).where('id', '=', id).execute();
  },

  /** Revokes every token the user made that is not revoked yet. */
  async revokeAllBy(db: Kysely<Tables>, userId: string, now: string): Promise<void> {
    await db
      .updateTable('embed_tokens')
      .set({ revoked_at: now })
      .where('created_by', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  },
};
