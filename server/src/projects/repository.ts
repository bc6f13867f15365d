import type { Kysely } from 'kysely';
import { pageRows } from '../db/paginate.js';
import type { ProjectMembersTable, ProjectsTable, Tables } from '../db/tables.js';
import type { SharedResource } from '../policy/policy.js';
import { asSharedResource as membersAsResource } from '../sharing/members.js';
import { type ProjectVisibility, projectMemberRows, projectRows } from '../tables/projects.js';

export interface ProjectRecord {
  row: ProjectsTable;
  members: (ProjectMembersTable & { email: string })[];
}

/** A project as the policy sees it. */
export function asSharedResource(record: ProjectRecord): SharedResource {
  return membersAsResource(record.members, record.row.is_public === 1, record.row.id);
}

export class ProjectsRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  async find(id: string): Promise<ProjectRecord | undefined> {
    const row = await projectRows.find(this.db, id);
    if (!row) return undefined;
    return { row, members: await this.members([id]) };
  }

  members(projectIds: string[]) {
    return projectMemberRows.ofProjects(this.db, projectIds);
  }

  /**
   * Projects an actor may see: all for admins; otherwise those they are a member of, plus public
   * ones when `includePublic`. One query, paged in the database.
   */
  async listVisible(
    options: ProjectVisibility & { limit: number; skip: number },
  ): Promise<{ records: ProjectRecord[]; total: number }> {
    const { rows, total } = await pageRows(
      projectRows.visible(this.db, options),
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
