import { type Insertable, type Kysely, type SqlBool, sql, type Updateable } from 'kysely';
import { chunks } from '../db/chunks.js';
import { nameContains } from '../db/name-search.js';
import type { ProjectMembersTable, ProjectsTable, Tables } from '../db/tables.js';

/** Which projects a caller may see (`ProjectsRepository.listVisible`). */
export interface ProjectVisibility {
  userId: string | null;
  admin: boolean;
  scope: 'all' | 'mine' | 'shared' | 'public';
  includePublic: boolean;
  /** Only these projects (a project-limited access token's); null or absent: no limit. */
  projectIds?: readonly string[] | null;
  q?: string | undefined;
}

/**
 * Every query on `projects` (docs/architecture.md "Table owners"). Each function takes the
 * database or a transaction, so callers keep their work atomic.
 */
export const projectRows = {
  find(db: Kysely<Tables>, id: string): Promise<ProjectsTable | undefined> {
    return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The id of the project of this name that this user created. */
  async idByCreatorAndName(db: Kysely<Tables>, createdBy: string, name: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('projects')
      .select('id')
      .where('created_by', '=', createdBy)
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.id;
  },

  /**
   * The projects a caller may see, filtered only (`pageRows` adds the order and the page): all for
   * admins; otherwise those they are a member of, plus public ones when `includePublic`.
   */
  visible(db: Kysely<Tables>, options: ProjectVisibility) {
    let query = db.selectFrom('projects');
    if (options.q !== undefined) query = query.where(nameContains('projects.name', options.q));
    if (options.projectIds != null) query = query.where('projects.id', 'in', [...options.projectIds]);
    const { userId, scope } = options;
    // Literal conditions, not bound booleans: SQLite cannot bind a boolean parameter.
    const always = sql<SqlBool>`1 = 1`;
    const never = sql<SqlBool>`1 = 0`;
    return query.where((eb) => {
      const memberOf = (roles: ProjectMembersTable['role'][]) =>
        userId === null ? never : eb('projects.id', 'in', projectMemberRows.projectIdsOf(db, userId, roles));
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
  },

  /** The ids of the public projects, as a subquery. */
  publicIds(db: Kysely<Tables>) {
    return db.selectFrom('projects').select('projects.id').where('projects.is_public', '=', 1);
  },

  async insert(db: Kysely<Tables>, row: Insertable<ProjectsTable>): Promise<void> {
    await db.insertInto('projects').values(row).execute();
  },

  async update(db: Kysely<Tables>, id: string, changes: Updateable<ProjectsTable>): Promise<void> {
    await db.updateTable('projects').set(changes).where('id', '=', id).execute();
  },

  /** Deletes these projects (everything in them goes with them, by the database's cascades). */
  async delete(db: Kysely<Tables>, ids: readonly string[]): Promise<void> {
    for (const some of chunks(ids)) await db.deleteFrom('projects').where('id', 'in', some).execute();
  },

  /**
   * Makes `toUserId` the creator of those of these projects `fromUserId` created, except where
   * `toUserId` already created one of the same name (names are unique per creator).
   */
  async handCreatorOver(db: Kysely<Tables>, ids: readonly string[], fromUserId: string, toUserId: string) {
    for (const some of chunks(ids)) {
      await db
        .updateTable('projects')
        .set({ created_by: toUserId })
        .where('id', 'in', some)
        .where('created_by', '=', fromUserId)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('projects as taken')
                .select('taken.id')
                .whereRef('taken.name', '=', 'projects.name')
                .where('taken.created_by', '=', toUserId),
            ),
          ),
        )
        .execute();
    }
  },
};

/** Every query on `project_members` (docs/architecture.md "Table owners"). */
export const projectMemberRows = {
  /** The members of these projects with their emails, by email. */
  async ofProjects(db: Kysely<Tables>, projectIds: readonly string[]) {
    if (projectIds.length === 0) return [];
    return db
      .selectFrom('project_members')
      .innerJoin('users', 'users.id', 'project_members.user_id')
      .select(['project_members.project_id', 'project_members.user_id', 'project_members.role', 'users.email'])
      .where('project_members.project_id', 'in', [...projectIds])
      .orderBy('users.email')
      .execute();
  },

  /** The ids of the projects the user is a member of in one of these roles (any role: omit them), as a subquery. */
  projectIdsOf(db: Kysely<Tables>, userId: string, roles?: readonly ProjectMembersTable['role'][]) {
    const query = db
      .selectFrom('project_members')
      .select('project_members.project_id')
      .where('project_members.user_id', '=', userId);
    return roles === undefined ? query : query.where('project_members.role', 'in', [...roles]);
  },

  /** The projects whose only owner member is `userId`, by id. */
  async solelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('project_members as mine')
      .select('mine.project_id as id')
      .where('mine.user_id', '=', userId)
      .where('mine.role', '=', 'owner')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('project_members as others')
              .select('others.user_id')
              .whereRef('others.project_id', '=', 'mine.project_id')
              .where('others.role', '=', 'owner')
              .where('others.user_id', '!=', userId),
          ),
        ),
      )
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  },

  /**
   * PostgreSQL only: locks the owner rows of every project the user owns, theirs and their
   * co-owners', until the transaction ends.
   */
  async lockOwnersAlongside(db: Kysely<Tables>, userId: string): Promise<void> {
    await db
      .selectFrom('project_members')
      .select(['project_id', 'user_id'])
      .where('role', '=', 'owner')
      .where('project_id', 'in', (eb) =>
        eb.selectFrom('project_members').select('project_id').where('user_id', '=', userId).where('role', '=', 'owner'),
      )
      .orderBy('project_id')
      .orderBy('user_id')
      .forUpdate()
      .execute();
  },

  async insert(db: Kysely<Tables>, rows: readonly ProjectMembersTable[]): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('project_members')
      .values([...rows])
      .execute();
  },

  /** Replaces the project's members with these. */
  async replace(db: Kysely<Tables>, projectId: string, rows: readonly ProjectMembersTable[]): Promise<void> {
    await db.deleteFrom('project_members').where('project_id', '=', projectId).execute();
    await projectMemberRows.insert(db, rows);
  },

  /** Makes the user an owner of these projects, promoting them where they were editor or viewer. */
  async makeOwner(db: Kysely<Tables>, projectIds: readonly string[], userId: string): Promise<void> {
    for (const some of chunks(projectIds)) {
      await db
        .insertInto('project_members')
        .values(some.map((project_id) => ({ project_id, user_id: userId, role: 'owner' as const })))
        .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet({ role: 'owner' }))
        .execute();
    }
  },
};
