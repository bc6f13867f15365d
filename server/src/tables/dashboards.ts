import { type Insertable, type Kysely, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import { chunks } from '../db/chunks.js';
import { nameContains } from '../db/name-search.js';
import type { DashboardMembersTable, DashboardsTable, Tables } from '../db/tables.js';
import { projectMemberRows, projectRows } from './projects.js';

/** Which dashboards a caller may read (`DashboardsRepository.listVisible`). */
export interface DashboardVisibility {
  userId: string | null;
  admin: boolean;
  includePublic: boolean;
  projectId: string | undefined;
  /** Only dashboards of these projects (a project-limited access token's); null or absent: no limit. */
  projectIds?: readonly string[] | null;
  q?: string | undefined;
}

/**
 * Every query on `dashboards` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const dashboardRows = {
  find(db: Kysely<Tables>, id: string): Promise<Selectable<DashboardsTable> | undefined> {
    return db.selectFrom('dashboards').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The ids of these projects' dashboards, as a subquery for `where … in` (a token's few projects). */
  idsInProjectsQuery(db: Kysely<Tables>, projectIds: readonly string[]) {
    return db
      .selectFrom('dashboards')
      .select('id')
      .where('project_id', 'in', [...projectIds]);
  },

  /**
   * The dashboards a caller may read, filtered only (`pageRows` adds the order and the page): the
   * policy's rule in SQL. All for admins; otherwise those they are a member of, those of projects
   * they are a member of, and, when `includePublic`, public ones and those of public projects.
   */
  visible(db: Kysely<Tables>, options: DashboardVisibility) {
    const { userId } = options;
    let query = db.selectFrom('dashboards');
    if (options.projectId !== undefined) query = query.where('dashboards.project_id', '=', options.projectId);
    if (options.q !== undefined) query = query.where(nameContains('dashboards.title', options.q));
    if (options.projectIds != null) query = query.where('dashboards.project_id', 'in', [...options.projectIds]);
    if (options.admin) return query;
    return query.where((eb) => {
      const visible = [];
      if (userId !== null) {
        visible.push(
          eb('dashboards.id', 'in', dashboardMemberRows.dashboardIdsOf(db, userId)),
          eb('dashboards.project_id', 'in', projectMemberRows.projectIdsOf(db, userId)),
        );
      }
      if (options.includePublic) {
        visible.push(eb('dashboards.is_public', '=', 1), eb('dashboards.project_id', 'in', projectRows.publicIds(db)));
      }
      // A literal, not a bound boolean: SQLite cannot bind one.
      return visible.length === 0 ? sql<SqlBool>`1 = 0` : eb.or(visible);
    });
  },

  /** The project's dashboards with their components (JSON), by title. */
  ofProjectWithComponents(db: Kysely<Tables>, projectId: string) {
    return db
      .selectFrom('dashboards')
      .select(['id', 'title', 'components'])
      .where('project_id', '=', projectId)
      .orderBy('title')
      .execute();
  },

  async countInProject(db: Kysely<Tables>, projectId: string): Promise<number> {
    const row = await db
      .selectFrom('dashboards')
      .select((eb) => eb.fn.countAll().as('total'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** The ids of the dashboards of these projects. */
  async idsInProjects(db: Kysely<Tables>, projectIds: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const some of chunks(projectIds)) {
      const rows = await db.selectFrom('dashboards').select('id').where('project_id', 'in', some).execute();
      ids.push(...rows.map((row) => row.id));
    }
    return ids;
  },

  /** The project's dashboard a template generated under this key (docs/templates.md "Re-running"), oldest first. */
  findGenerated(db: Kysely<Tables>, projectId: string, key: string) {
    return db
      .selectFrom('dashboards')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('generated_from', '=', key)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
  },

  /** A dashboard of this title that no template generated (made before generation was recorded), oldest first. */
  findUngeneratedByTitle(db: Kysely<Tables>, projectId: string, title: string) {
    return db
      .selectFrom('dashboards')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('title', '=', title)
      .where('generated_from', 'is', null)
      .where('copy_of', 'is', null)
      .orderBy('created_at')
      .limit(1)
      .executeTakeFirst();
  },

  /**
   * Writes what a generator records of a dashboard (its key, the fingerprint of what it wrote, an
   * offer); not a save: the revision stays. Only the fields given change.
   */
  async setGenerated(
    db: Kysely<Tables>,
    id: string,
    changes: Pick<
      Updateable<DashboardsTable>,
      'generated_from' | 'generated_fingerprint' | 'generated_offer' | 'generated_offer_at' | 'generated_offer_template'
    >,
  ): Promise<void> {
    await db.updateTable('dashboards').set(changes).where('id', '=', id).execute();
  },

  async insert(db: Kysely<Tables>, row: Insertable<DashboardsTable>): Promise<void> {
    await db.insertInto('dashboards').values(row).execute();
  },

  /** Writes the columns if the dashboard is still at `revision`; answers whether it was. */
  async updateAtRevision(
    db: Kysely<Tables>,
    id: string,
    revision: number,
    changes: Updateable<DashboardsTable>,
  ): Promise<boolean> {
    const answer = await db
      .updateTable('dashboards')
      .set(changes)
      .where('id', '=', id)
      .where('revision', '=', revision)
      .executeTakeFirst();
    return Number(answer.numUpdatedRows) === 1;
  },

  /**
   * Replaces a dashboard's palette if it is still `previous` (two readers extending it at once:
   * the second finds it changed and extends what the first stored). Not a save: the revision stays.
   */
  async replaceColors(db: Kysely<Tables>, id: string, previous: string, colors: string): Promise<boolean> {
    const answer = await db
      .updateTable('dashboards')
      .set({ colors })
      .where('id', '=', id)
      .where('colors', '=', previous)
      .executeTakeFirst();
    return Number(answer.numUpdatedRows) === 1;
  },

  /** Makes `toUserId` the creator of those of these dashboards `fromUserId` created. */
  async handCreatorOver(db: Kysely<Tables>, ids: readonly string[], fromUserId: string, toUserId: string) {
    for (const some of chunks(ids)) {
      await db
        .updateTable('dashboards')
        .set({ created_by: toUserId })
        .where('id', 'in', some)
        .where('created_by', '=', fromUserId)
        .execute();
    }
  },

  /** Deletes the dashboard, only at `revision` when given; answers whether it was deleted. */
  async delete(db: Kysely<Tables>, id: string, revision?: number): Promise<boolean> {
    let query = db.deleteFrom('dashboards').where('id', '=', id);
    if (revision !== undefined) query = query.where('revision', '=', revision);
    const deleted = await query.executeTakeFirst();
    return Number(deleted.numDeletedRows) === 1;
  },

  async deleteMany(db: Kysely<Tables>, ids: readonly string[]): Promise<void> {
    for (const some of chunks(ids)) await db.deleteFrom('dashboards').where('id', 'in', some).execute();
  },

  /** Deletes the dashboards `userId` is the only owner of, in one statement. */
  async deleteSolelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<void> {
    await db.deleteFrom('dashboards').where('id', 'in', dashboardMemberRows.solelyOwned(db, userId)).execute();
  },
};

/** Every query on `dashboard_members` (docs/architecture.md "Table owners"). */
export const dashboardMemberRows = {
  /** The members of these dashboards with their emails, by email. */
  async ofDashboards(db: Kysely<Tables>, dashboardIds: readonly string[]) {
    if (dashboardIds.length === 0) return [];
    return db
      .selectFrom('dashboard_members')
      .innerJoin('users', 'users.id', 'dashboard_members.user_id')
      .select(['dashboard_members.dashboard_id', 'dashboard_members.user_id', 'dashboard_members.role', 'users.email'])
      .where('dashboard_members.dashboard_id', 'in', [...dashboardIds])
      .orderBy('users.email')
      .execute();
  },

  /** The ids of the dashboards the user is a member of, as a subquery. */
  dashboardIdsOf(db: Kysely<Tables>, userId: string) {
    return db
      .selectFrom('dashboard_members')
      .select('dashboard_members.dashboard_id')
      .where('dashboard_members.user_id', '=', userId);
  },

  /** The ids (`id`) of the dashboards whose only owner member is `userId`, as a subquery. */
  solelyOwned(db: Kysely<Tables>, userId: string) {
    return db
      .selectFrom('dashboard_members as mine')
      .select('mine.dashboard_id as id')
      .where('mine.user_id', '=', userId)
      .where('mine.role', '=', 'owner')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('dashboard_members as others')
              .select('others.user_id')
              .whereRef('others.dashboard_id', '=', 'mine.dashboard_id')
              .where('others.role', '=', 'owner')
              .where('others.user_id', '!=', userId),
          ),
        ),
      );
  },

  /** The dashboards whose only owner member is `userId` (their project's owners aside), by id. */
  async solelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<string[]> {
    const rows = await dashboardMemberRows.solelyOwned(db, userId).orderBy('id').execute();
    return rows.map((row) => row.id);
  },

  /**
   * PostgreSQL only: locks the owner rows of every dashboard the user owns, theirs and their
   * co-owners', until the transaction ends.
   */
  async lockOwnersAlongside(db: Kysely<Tables>, userId: string): Promise<void> {
    await db
      .selectFrom('dashboard_members')
      .select(['dashboard_id', 'user_id'])
      .where('role', '=', 'owner')
      .where('dashboard_id', 'in', (eb) =>
        eb
          .selectFrom('dashboard_members')
          .select('dashboard_id')
          .where('user_id', '=', userId)
          .where('role', '=', 'owner'),
      )
      .orderBy('dashboard_id')
      .orderBy('user_id')
      .forUpdate()
      .execute();
  },

  async insert(db: Kysely<Tables>, rows: readonly DashboardMembersTable[]): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('dashboard_members')
      .values([...rows])
      .execute();
  },

  /** Replaces the dashboard's members with these. */
  async replace(db: Kysely<Tables>, dashboardId: string, rows: readonly DashboardMembersTable[]): Promise<void> {
    await db.deleteFrom('dashboard_members').where('dashboard_id', '=', dashboardId).execute();
    await dashboardMemberRows.insert(db, rows);
  },

  /** Makes the user an owner of these dashboards, promoting them where they were editor or viewer. */
  async makeOwner(db: Kysely<Tables>, dashboardIds: readonly string[], userId: string): Promise<void> {
    for (const some of chunks(dashboardIds)) {
      await db
        .insertInto('dashboard_members')
        .values(some.map((dashboard_id) => ({ dashboard_id, user_id: userId, role: 'owner' as const })))
        .onConflict((oc) => oc.columns(['dashboard_id', 'user_id']).doUpdateSet({ role: 'owner' }))
        .execute();
    }
  },
};
