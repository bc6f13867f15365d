import type { Insertable, Kysely, Updateable } from 'kysely';
import type { RunConfigurationsTable, Tables, WorkflowsTable } from '../db/tables.js';

/**
 * Every query on `workflows` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const workflowRows = {
  find(db: Kysely<Tables>, id: string): Promise<WorkflowsTable | undefined> {
    return db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The project's workflow with this name: its id, data location, schedule and watch. */
  findByName(
    db: Kysely<Tables>,
    projectId: string,
    name: string,
  ): Promise<Pick<WorkflowsTable, 'id' | 'data_location' | 'schedule' | 'watch'> | undefined> {
    return db
      .selectFrom('workflows')
      .select(['id', 'data_location', 'schedule', 'watch'])
      .where('project_id', '=', projectId)
      .where('name', '=', name)
      .executeTakeFirst();
  },

  /** The workflows of one project, filtered only: `paginate` adds the order and the page. */
  ofProjectFiltered(db: Kysely<Tables>, projectId: string) {
    return db.selectFrom('workflows').where('project_id', '=', projectId);
  },

  /** The project's workflows, oldest first. */
  ofProject(db: Kysely<Tables>, projectId: string): Promise<WorkflowsTable[]> {
    return db
      .selectFrom('workflows')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },

  /** The name and data location of each of the project's workflows. */
  locationsOfProject(db: Kysely<Tables>, projectId: string): Promise<Pick<WorkflowsTable, 'name' | 'data_location'>[]> {
    return db.selectFrom('workflows').select(['name', 'data_location']).where('project_id', '=', projectId).execute();
  },

  /** Whether one of the project's workflows declares a data location. */
  async anyLocatedInProject(db: Kysely<Tables>, projectId: string): Promise<boolean> {
    const located = await db
      .selectFrom('workflows')
      .select('id')
      .where('project_id', '=', projectId)
      .where('data_location', 'is not', null)
      .executeTakeFirst();
    return located !== undefined;
  },

  /** The data locations declared in projects other than `projectId` (all when absent), with their project's visibility. */
  locatedOutside(db: Kysely<Tables>, projectId: string | undefined) {
    let query = db
      .selectFrom('workflows')
      .innerJoin('projects', 'projects.id', 'workflows.project_id')
      .select(['workflows.project_id', 'workflows.data_location', 'projects.is_public'])
      .where('workflows.data_location', 'is not', null);
    if (projectId !== undefined) query = query.where('workflows.project_id', '!=', projectId);
    return query.execute();
  },

  async idsOfProjects(db: Kysely<Tables>, projectIds: readonly string[]): Promise<string[]> {
    if (projectIds.length === 0) return [];
    const rows = await db
      .selectFrom('workflows')
      .select('id')
      .where('project_id', 'in', [...projectIds])
      .execute();
    return rows.map((row) => row.id);
  },

  async countInProject(db: Kysely<Tables>, projectId: string): Promise<number> {
    const row = await db
      .selectFrom('workflows')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  async insert(db: Kysely<Tables>, row: Insertable<WorkflowsTable>): Promise<void> {
    await db.insertInto('workflows').values(row).execute();
  },

  async update(db: Kysely<Tables>, id: string, changes: Updateable<WorkflowsTable>): Promise<void> {
    await db.updateTable('workflows').set(changes).where('id', '=', id).execute();
  },

  /** Sets the engine and data location (and `changes`' other columns) only when one of the two differs. */
  async updateIfChanged(
    db: Kysely<Tables>,
    id: string,
    changes: Pick<WorkflowsTable, 'engine' | 'data_location'> & Updateable<WorkflowsTable>,
  ): Promise<void> {
    const { engine, data_location: dataLocation } = changes;
    await db
      .updateTable('workflows')
      .set(changes)
      .where('id', '=', id)
      .where((eb) =>
        eb.or([eb('engine', 'is distinct from', engine), eb('data_location', 'is distinct from', dataLocation)]),
      )
      .execute();
  },

  async delete(db: Kysely<Tables>, id: string): Promise<void> {
    await db.deleteFrom('workflows').where('id', '=', id).execute();
  },

  /** The workflows whose schedule or watch is due at `now` (an ISO time). */
  due(db: Kysely<Tables>, now: string): Promise<WorkflowsTable[]> {
    return db
      .selectFrom('workflows')
      .selectAll()
      .where((eb) => eb.or([eb('schedule_next_at', '<=', now), eb('watch_next_at', '<=', now)]))
      .orderBy('id')
      .execute();
  },

  /**
   * Moves a due time from `due` to `next`, only if nobody moved it yet: the one process whose
   * update changes the row owns that occurrence, however many look at once.
   */
  async claim(
    db: Kysely<Tables>,
    id: string,
    column: 'schedule_next_at' | 'watch_next_at',
    due: string,
    next: string | null,
  ): Promise<boolean> {
    const result = await db
      .updateTable('workflows')
      .set({ [column]: next })
      .where('id', '=', id)
      .where(column, '=', due)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async setWatchFingerprint(db: Kysely<Tables>, id: string, fingerprint: string): Promise<void> {
    await db.updateTable('workflows').set({ watch_fingerprint: fingerprint }).where('id', '=', id).execute();
  },
};

/** Every query on `run_configurations`: a workflow's saved parameter sets, versioned by name. */
export const runConfigurationRows = {
  /** The workflow's configurations, filtered only: `paginate` adds the order and the page. */
  ofWorkflowFiltered(db: Kysely<Tables>, workflowId: string) {
    return db.selectFrom('run_configurations').where('workflow_id', '=', workflowId);
  },

  /** The highest version saved under this name (0 when none). */
  async latestVersion(db: Kysely<Tables>, workflowId: string, name: string): Promise<number> {
    const latest = await db
      .selectFrom('run_configurations')
      .select((eb) => eb.fn.max('version').as('version'))
      .where('workflow_id', '=', workflowId)
      .where('name', '=', name)
      .executeTakeFirst();
    return Number(latest?.version ?? 0);
  },

  async insert(db: Kysely<Tables>, row: Insertable<RunConfigurationsTable>): Promise<void> {
    await db.insertInto('run_configurations').values(row).execute();
  },
};
