import type { Kysely, OperandValueExpressionOrList } from 'kysely';
import type { CommitClaims } from './commit-claims.js';

/** The `delta_commits` table (migration 0003_delta_commits): one row per claimed table version. */
export type DeltaCommitsTable = {
  table_id: string;
  version: number;
  /** ISO-8601 UTC, when the claim was made (or taken over). */
  claimed_at: string;
};

export type DeltaCommitsDatabase = {
  delta_commits: DeltaCommitsTable;
};

/**
 * Commit claims as unique `(table_id, version)` rows in the metadata database, shared by every
 * replica: an insert that conflicts with an existing row loses (SQLite and PostgreSQL alike).
 */
export class KyselyCommitClaims implements CommitClaims {
  constructor(
    private readonly db: Kysely<DeltaCommitsDatabase>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Over the server's Kysely instance, whatever its other tables. */
  static over<DB>(db: Kysely<DB>, now?: () => Date): KyselyCommitClaims {
    return new KyselyCommitClaims(
      db.withTables<DeltaCommitsDatabase>() as unknown as Kysely<DeltaCommitsDatabase>,
      now,
    );
  }

  async claim(tableId: string, version: number): Promise<boolean> {
    const result = await this.db
      .insertInto('delta_commits')
      .values({ table_id: tableId, version, claimed_at: this.now().toISOString() })
      .onConflict((conflict) => conflict.columns(['table_id', 'version']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async reclaimStale(tableId: string, version: number, claimedBefore: Date): Promise<boolean> {
    const result = await this.db
      .updateTable('delta_commits')
      .set({ claimed_at: this.now().toISOString() })
      .where('table_id', '=', tableId)
      .where('version', '=', version)
      .where('claimed_at', '<', claimedBefore.toISOString())
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async forget(tableId: string): Promise<void> {
    await this.db.deleteFrom('delta_commits').where('table_id', '=', tableId).execute();
  }

  /**
   * Deletes the claims of every table not in `keep` (a subquery of the table ids still in use), in
   * one statement.
   */
  async forgetAllBut(
    keep: OperandValueExpressionOrList<DeltaCommitsDatabase, 'delta_commits', 'table_id'>,
  ): Promise<void> {
    await this.db.deleteFrom('delta_commits').where('table_id', 'not in', keep).execute();
  }

  /** How many versions are claimed, over every table, and when the newest claim was made. */
  async figures(): Promise<{ count: number; newestClaimedAt: string | null }> {
    const row = await this.db
      .selectFrom('delta_commits')
      .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.max('claimed_at').as('newest')])
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), newestClaimedAt: row.newest ?? null };
  }
}
