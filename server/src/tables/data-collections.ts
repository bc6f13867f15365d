import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DataCollectionsTable, Tables } from '../db/tables.js';

/**
 * Every query on `data_collections` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const dataCollectionRows = {
  find(db: Kysely<Tables>, id: string): Promise<DataCollectionsTable | undefined> {
    return db.selectFrom('data_collections').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The collections of one workflow, filtered only: `paginate` adds the order and the page. */
  ofWorkflowFiltered(db: Kysely<Tables>, workflowId: string) {
    return db.selectFrom('data_collections').where('workflow_id', '=', workflowId);
  },

  /** The collections of these workflows, oldest first. */
  async ofWorkflows(db: Kysely<Tables>, workflowIds: readonly string[]): Promise<DataCollectionsTable[]> {
    if (workflowIds.length === 0) return [];
    return db
      .selectFrom('data_collections')
      .selectAll()
      .where('workflow_id', 'in', [...workflowIds])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  /** The id of the workflow's collection with this tag. */
  async idByTag(db: Kysely<Tables>, workflowId: string, tag: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('data_collections')
      .select('id')
      .where('workflow_id', '=', workflowId)
      .where('tag', '=', tag)
      .executeTakeFirst();
    return row?.id;
  },

  /** Every data collection of the project: its id, tag (unique per workflow only) and type. */
  ofProject(db: Kysely<Tables>, projectId: string): Promise<Pick<DataCollectionsTable, 'id' | 'tag' | 'type'>[]> {
    return db
      .selectFrom('data_collections')
      .innerJoin('workflows', 'workflows.id', 'data_collections.workflow_id')
      .select(['data_collections.id', 'data_collections.tag', 'data_collections.type'])
      .where('workflows.project_id', '=', projectId)
      .orderBy('data_collections.id')
      .execute();
  },

  /** Of `ids`, the rows of those that are data collections of the project. */
  async someOfProject(db: Kysely<Tables>, projectId: string, ids: readonly string[]): Promise<DataCollectionsTable[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom('data_collections')
      .innerJoin('workflows', 'workflows.id', 'data_collections.workflow_id')
      .selectAll('data_collections')
      .where('workflows.project_id', '=', projectId)
      .where('data_collections.id', 'in', [...ids])
      .execute();
  },

  async countInProject(db: Kysely<Tables>, projectId: string): Promise<number> {
    const row = await db
      .selectFrom('data_collections')
      .innerJoin('workflows', 'workflows.id', 'data_collections.workflow_id')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('workflows.project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** The ids of the collections of these workflows. */
  async idsOfWorkflows(db: Kysely<Tables>, workflowIds: readonly string[]): Promise<string[]> {
    if (workflowIds.length === 0) return [];
    const rows = await db
      .selectFrom('data_collections')
      .select('id')
      .where('workflow_id', 'in', [...workflowIds])
      .execute();
    return rows.map((row) => row.id);
  },

  /** Of `ids`, those that are still data collections. */
  async existingIds(db: Kysely<Tables>, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('data_collections')
      .select('id')
      .where('id', 'in', [...ids])
      .execute();
    return rows.map((row) => row.id);
  },

  /** Every collection's id, as a subquery (`where table_id not in …`). */
  allIds(db: Kysely<Tables>) {
    return db.selectFrom('data_collections').select('id');
  },

  async insert(db: Kysely<Tables>, row: Insertable<DataCollectionsTable>): Promise<void> {
    await db.insertInto('data_collections').values(row).execute();
  },

  async update(db: Kysely<Tables>, id: string, changes: Updateable<DataCollectionsTable>): Promise<void> {
    await db.updateTable('data_collections').set(changes).where('id', '=', id).execute();
  },

  /** Sets the columns, writing the row only when one of them differs (its `updated_at` stays otherwise). */
  async updateIfChanged(
    db: Kysely<Tables>,
    id: string,
    values: Pick<DataCollectionsTable, 'type' | 'pattern' | 'format' | 'read_options' | 'keys' | 'columns'>,
  ): Promise<void> {
    await db
      .updateTable('data_collections')
      .set(values)
      .where('id', '=', id)
      .where((eb) =>
        eb.or(
          Object.entries(values).map(([column, value]) => eb(column as keyof typeof values, 'is distinct from', value)),
        ),
      )
      .execute();
  },

  async delete(db: Kysely<Tables>, id: string): Promise<void> {
    await db.deleteFrom('data_collections').where('id', '=', id).execute();
  },
};
