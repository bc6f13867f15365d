import { type Kysely, type SqlBool, sql } from 'kysely';
import { nameContains } from '../db/name-search.js';
import { pageRows } from '../db/paginate.js';
import type { ProjectMembersTable, ProjectsTable, Tables } from '../db/tables.js';
import type { SharedResource } from '../policy/policy.js';
import { asSharedResource as membersAsResource } from '../sharing/members.js';

export interface ProjectRecord {
  row: ProjectsTable;
  members: (ProjectMembersTable & { email: string })[];
}

/** A project as the policy sees it. */
export function asSharedResource(record: ProjectRecord): SharedResource {
  return membersAsResource(record.members, record.row.is_public === 1);
}

export class ProjectsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async find(id: string): Promise<ProjectRecord | undefined> {
    const row = await this.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return { row, members: await this.members([id]) };
  }

  async members(projectIds: string[]) {
    if (projectIds.length === 0) return [];
    return this.db
      .selectFrom('project_members')
      .innerJoin('users', 'users.id', 'project_members.user_id')
      .select(['project_members.project_id', 'project_members.user_id', 'project_members.role', 'users.email'])
      .where('project_members.project_id', 'in', projectIds)
      .orderBy('users.email')
      .execute();
  }

  /**
   * Projects an actor may see: all for admins; otherwise those they are a member of, plus public
   * ones when `includePublic`. One query, paged in the database.
   */
  async listVisible(options: {
    userId: string | null;
    admin: boolean;
    scope: 'all' | 'mine' | 'shared' | 'public';
    includePublic: boolean;
    q?: string | undefined;
    limit: number;
    skip: number;
  }): Promise<{ records: ProjectRecord[]; total: number }> {
    let query = this.db.selectFrom('projects');
    if (options.q !== undefined) query = query.where(nameContains('projects.name', options.q));
    const { userId, scope } = options;
    // Literal conditions, not bound booleans: SQLite cannot bind a boolean parameter.
    const always = sql<SqlBool>`1 = 1`;
    const never = sql<SqlBool>`1 = 0`;
    query = query.where((eb) => {
      const memberOf = (roles: ProjectMembersTable['role'][]) =>
        userId === null
          ? never
          : eb(
              'projects.id',
              'in',
              eb
                .selectFrom('project_members')
                .select('project_members.project_id')
                .where('project_members.user_id', '=', userId)
                .where('project_members.role', 'in', roles),
            );
      const isPublic = eb('projects.is_public', '=', 1);
      switch (scope) {
        case 'mine':
          return memberOf(['owner']);
        case 'shared':
          return memberOf(['editor', 'viewer']);
        case 'public':
          return options.includePublic || options.admin ? isPublic : never;
        default: {
          if (options.admin) return always;
          const visible = [memberOf(['owner', 'editor', 'viewer'])];
          if (options.includePublic) visible.push(isPublic);
          return eb.or(visible);
        }
      }
    });
    const { rows, total } = await pageRows(
      query,
      (filtered) =>
        filtered.selectAll('projects').orderBy('projects.created_at', 'desc').orderBy('projects.id', 'desc'),
      options,
    );
    const members = await this.members(rows.map((row) => row.id));
    return {
      records: rows.map((row) => ({ row, members: members.filter((member) => member.project_id === row.id) })),
      total,
    };
  }
}
