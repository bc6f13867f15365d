import type { DashboardSort } from '@service/common';
import type { Selectable, SelectQueryBuilder } from 'kysely';
import { type Kysely, type SqlBool, sql } from 'kysely';
import { nameContains } from '../db/name-search.js';
import { pageRows } from '../db/paginate.js';
import type { DashboardsTable, DataCollectionsTable, Tables } from '../db/tables.js';
import type { MemberRecord } from '../sharing/members.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { projectMemberRows, projectRows } from '../tables/projects.js';

export interface DashboardRecord {
  row: Selectable<DashboardsTable>;
  members: MemberRecord[];
}

/** A dashboard of a list, with its project's name. */
export interface ListedDashboardRecord extends DashboardRecord {
  projectName: string;
}

/** The order of each `DashboardSort`; the id breaks ties so pages never overlap. */
const SORT_ORDERS: Record<DashboardSort, [string, 'asc' | 'desc'][]> = {
  created: [['dashboards.created_at', 'desc']],
  updated: [['dashboards.updated_at', 'desc']],
  title: [['dashboards.title', 'asc']],
  project: [
    ['projects.name', 'asc'],
    ['dashboards.title', 'asc'],
  ],
};

/** The dashboards' columns and their project's name, in the order `sort` asks for. */
function withProjectInOrder(
  filtered: SelectQueryBuilder<Tables, 'dashboards', object>,
  sort: DashboardSort = 'created',
) {
  let query = filtered
    .innerJoin('projects', 'projects.id', 'dashboards.project_id')
    .selectAll('dashboards')
    .select('projects.name as project_name');
  for (const [column, direction] of SORT_ORDERS[sort]) {
    query = query.orderBy(sql.ref(column), direction);
  }
  return query.orderBy('dashboards.id', 'desc');
}

/** Every query on dashboards and their members. */
export class DashboardsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async find(id: string): Promise<DashboardRecord | undefined> {
    const row = await this.db.selectFrom('dashboards').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return { row, members: await this.members([id]).then((members) => members.get(id) ?? []) };
  }

  /** Members of each dashboard, by email. */
  async members(dashboardIds: string[]): Promise<Map<string, MemberRecord[]>> {
    const byDashboard = new Map<string, MemberRecord[]>();
    if (dashboardIds.length === 0) return byDashboard;
    const rows = await this.db
      .selectFrom('dashboard_members')
      .innerJoin('users', 'users.id', 'dashboard_members.user_id')
      .select(['dashboard_members.dashboard_id', 'dashboard_members.user_id', 'dashboard_members.role', 'users.email'])
      .where('dashboard_members.dashboard_id', 'in', dashboardIds)
      .orderBy('users.email')
      .execute();
    for (const { dashboard_id, ...member } of rows) {
      byDashboard.set(dashboard_id, [...(byDashboard.get(dashboard_id) ?? []), member]);
    }
    return byDashboard;
  }

  /**
   * Dashboards an actor may read (the policy's rule in SQL, so the database pages): all for
   * admins; otherwise those they are a member of, those of projects they are a member of, and,
   * when `includePublic`, public ones and those of public projects. Newest first.
   */
  async listVisible(options: {
    userId: string | null;
    admin: boolean;
    includePublic: boolean;
    projectId: string | undefined;
    q?: string | undefined;
    sort?: DashboardSort;
    limit: number;
    skip: number;
  }): Promise<{ records: ListedDashboardRecord[]; total: number }> {
    const { userId } = options;
    let query = this.db.selectFrom('dashboards');
    if (options.projectId !== undefined) query = query.where('dashboards.project_id', '=', options.projectId);
    if (options.q !== undefined) query = query.where(nameContains('dashboards.title', options.q));
    if (!options.admin) {
      query = query.where((eb) => {
        const visible = [];
        if (userId !== null) {
          visible.push(
            eb(
              'dashboards.id',
              'in',
              eb
                .selectFrom('dashboard_members')
                .select('dashboard_members.dashboard_id')
                .where('dashboard_members.user_id', '=', userId),
            ),
            eb('dashboards.project_id', 'in', projectMemberRows.projectIdsOf(this.db, userId)),
          );
        }
        if (options.includePublic) {
          visible.push(
            eb('dashboards.is_public', '=', 1),
            eb('dashboards.project_id', 'in', projectRows.publicIds(this.db)),
          );
        }
        // A literal, not a bound boolean: SQLite cannot bind one.
        return visible.length === 0 ? sql<SqlBool>`1 = 0` : eb.or(visible);
      });
    }
    const { rows, total } = await pageRows(query, (filtered) => withProjectInOrder(filtered, options.sort), options);
    const members = await this.members(rows.map((row) => row.id));
    return {
      records: rows.map(({ project_name, ...row }) => ({
        row,
        members: members.get(row.id) ?? [],
        projectName: project_name,
      })),
      total,
    };
  }

  /**
   * Replaces a dashboard's palette if it is still `previous` (two readers extending it at once:
   * the second finds it changed and extends what the first stored). Not a save: the revision stays.
   */
  async replaceColors(id: string, previous: string, colors: string): Promise<boolean> {
    const answer = await this.db
      .updateTable('dashboards')
      .set({ colors })
      .where('id', '=', id)
      .where('colors', '=', previous)
      .executeTakeFirst();
    return Number(answer.numUpdatedRows) === 1;
  }

  /** Deletes the dashboards `userId` is the only owner of (a temporary user's, on their removal). */
  static async deleteSolelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<void> {
    await db
      .deleteFrom('dashboards')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('dashboard_members as mine')
          .select('mine.dashboard_id')
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
          ),
      )
      .execute();
  }

  /** Every data collection of the project: its id and its tag (unique per workflow only). */
  async collectionsOfProject(projectId: string): Promise<{ id: string; tag: string; type: 'table' | 'multiqc' }[]> {
    return dataCollectionRows.ofProject(this.db, projectId);
  }

  /** Of `ids`, the rows of those that are data collections of the project. */
  async collectionRowsOfProject(projectId: string, ids: readonly string[]): Promise<DataCollectionsTable[]> {
    return dataCollectionRows.someOfProject(this.db, projectId, ids);
  }
}
