import type { DashboardSort } from '@service/common';
import type { Selectable, SelectQueryBuilder } from 'kysely';
import { type Kysely, sql } from 'kysely';
import { pageRows } from '../db/paginate.js';
import type { DashboardsTable, DataCollectionsTable, Tables } from '../db/tables.js';
import type { MemberRecord } from '../sharing/members.js';
import { type DashboardVisibility, dashboardMemberRows, dashboardRows } from '../tables/dashboards.js';
import { dataCollectionRows } from '../tables/data-collections.js';

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

/** Dashboards as records (a row and its members); the queries are `tables/dashboards.ts`'s. */
export class DashboardsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async find(id: string): Promise<DashboardRecord | undefined> {
    const row = await dashboardRows.find(this.db, id);
    if (!row) return undefined;
    return { row, members: await this.members([id]).then((members) => members.get(id) ?? []) };
  }

  /** Members of each dashboard, by email. */
  async members(dashboardIds: string[]): Promise<Map<string, MemberRecord[]>> {
    const byDashboard = new Map<string, MemberRecord[]>();
    for (const { dashboard_id, ...member } of await dashboardMemberRows.ofDashboards(this.db, dashboardIds)) {
      byDashboard.set(dashboard_id, [...(byDashboard.get(dashboard_id) ?? []), member]);
    }
    return byDashboard;
  }

  /**
   * Dashboards an actor may read (the policy's rule in SQL, so the database pages): see
   * `dashboardRows.visible`. Newest first, unless `sort` says otherwise.
   */
  async listVisible(
    options: DashboardVisibility & { sort?: DashboardSort; limit: number; skip: number },
  ): Promise<{ records: ListedDashboardRecord[]; total: number }> {
    const { rows, total } = await pageRows(
      dashboardRows.visible(this.db, options),
      (filtered) => withProjectInOrder(filtered, options.sort),
      options,
    );
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

  /** See `dashboardRows.replaceColors`. */
  replaceColors(id: string, previous: string, colors: string): Promise<boolean> {
    return dashboardRows.replaceColors(this.db, id, previous, colors);
  }

  /** Every data collection of the project: its id and its tag (unique per workflow only). */
  async collectionsOfProject(
    projectId: string,
  ): Promise<{ id: string; tag: string; type: DataCollectionsTable['type'] }[]> {
    return dataCollectionRows.ofProject(this.db, projectId);
  }

  /** Of `ids`, the rows of those that are data collections of the project. */
  async collectionRowsOfProject(projectId: string, ids: readonly string[]): Promise<DataCollectionsTable[]> {
    return dataCollectionRows.someOfProject(this.db, projectId, ids);
  }
}
