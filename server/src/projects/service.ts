import type { Project, ProjectDefinition, ProjectDeletionSummary } from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { type AuditLog, actorUserId, sharingDetails } from '../audit/service.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import { type OwnedStorage, ownedStorage, type StoragePurger } from '../maintenance/owned-storage.js';
import type { Actor, UserActor } from '../policy/actor.js';
import { authorize, type ResourceAction, tokenProjects } from '../policy/policy.js';
import { resolveMembers } from '../sharing/members.js';
import { projectMemberRows, projectRows } from '../tables/projects.js';
import { projectDeletionSummary } from './deletion-summary.js';
import { presentProject } from './presenters.js';
import { asSharedResource, type ProjectRecord, ProjectsRepository } from './repository.js';

const nameTaken = () => new DomainError('name_taken', 'you already have a project with this name');

/** Projects: creation, visibility, sharing. Every access goes through the policy. */
export class ProjectsService {
  readonly repository: ProjectsRepository;

  constructor(
    private readonly database: Database,
    private readonly purger: StoragePurger,
    private readonly audit: AuditLog,
  ) {
    this.repository = new ProjectsRepository(database.db);
  }

  /** Loads a project and checks the actor may do `action` on it (404 if they may not even see it). */
  async access(actor: Actor, projectId: string, action: ResourceAction): Promise<ProjectRecord> {
    const record = await this.repository.find(projectId);
    if (!record) throw notFound('project');
    authorize(actor, action, asSharedResource(record));
    return record;
  }

  async list(
    actor: Actor,
    query: { limit: number; skip: number; scope: 'all' | 'mine' | 'shared' | 'public'; q?: string | undefined },
  ) {
    const { records, total } = await this.repository.listVisible({
      userId: actor.kind === 'user' ? actor.userId : null,
      admin: actor.kind === 'user' && actor.role === 'admin',
      includePublic: actor.kind === 'user' || actor.mayBrowsePublic,
      projectIds: tokenProjects(actor),
      ...query,
    });
    return {
      items: records.map((record) => presentProject(record, actor)),
      total,
      limit: query.limit,
      skip: query.skip,
    };
  }

  async get(actor: Actor, projectId: string): Promise<Project> {
    return presentProject(await this.access(actor, projectId, 'resource.read'), actor);
  }

  async create(
    actor: UserActor,
    request: { name: string; description: string; is_public: boolean },
    db: Kysely<Tables> = this.database.db,
  ): Promise<string> {
    const id = uuidv7();
    const now = isoNow();
    try {
      await projectRows.insert(db, {
        id,
        name: request.name,
        description: request.description,
        is_public: request.is_public ? 1 : 0,
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
    await projectMemberRows.insert(db, [{ project_id: id, user_id: actor.userId, role: 'owner' }]);
    const details = { project_id: id, name: request.name, is_public: request.is_public };
    await this.audit.record({ type: 'project.created', actorUserId: actor.userId, details }, db);
    return id;
  }

  async createAndPresent(actor: UserActor, request: { name: string; description: string; is_public: boolean }) {
    const id = await this.database.db.transaction().execute((trx) => this.create(actor, request, trx));
    return this.get(actor, id);
  }

  async update(
    actor: Actor,
    projectId: string,
    changes: { name?: string | undefined; description?: string | undefined },
  ) {
    const before = await this.access(actor, projectId, 'resource.edit');
    try {
      await this.database.db.transaction().execute(async (trx) => {
        await projectRows.update(trx, projectId, {
          ...(changes.name === undefined ? {} : { name: changes.name }),
          ...(changes.description === undefined ? {} : { description: changes.description }),
          updated_at: isoNow(),
        });
        const details = { project_id: projectId, name: changes.name ?? before.row.name, changed: Object.keys(changes) };
        await this.audit.record({ type: 'project.updated', actorUserId: actorUserId(actor), details }, trx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
    return this.get(actor, projectId);
  }

  /** Replaces the member lists and the public switch; members are named by user id or email. */
  async setPermissions(
    actor: Actor,
    projectId: string,
    request: { owners: string[]; editors: string[]; viewers: string[]; is_public: boolean },
  ): Promise<Project> {
    await this.access(actor, projectId, 'resource.share');
    const members = await resolveMembers(this.database.db, request);
    await this.database.db.transaction().execute(async (trx) => {
      const rows = [...members].map(([userId, role]) => ({ project_id: projectId, user_id: userId, role }));
      await projectMemberRows.replace(trx, projectId, rows);
      await projectRows.update(trx, projectId, { is_public: request.is_public ? 1 : 0, updated_at: isoNow() });
      const details = { project_id: projectId, ...sharingDetails(members, request.is_public) };
      await this.audit.record({ type: 'project.shared', actorUserId: actorUserId(actor), details }, trx);
    });
    // The sharing as written, even when it leaves the caller unable to read the project again.
    const record = await this.repository.find(projectId);
    if (!record) throw notFound('project');
    return presentProject(record, actor);
  }

  /** What deleting the project would take with it, for those who may delete it. */
  async deletionSummary(actor: Actor, projectId: string): Promise<ProjectDeletionSummary> {
    await this.access(actor, projectId, 'resource.delete');
    return projectDeletionSummary(this.database.db, projectId);
  }

  async delete(actor: Actor, projectId: string): Promise<void> {
    const { row } = await this.access(actor, projectId, 'resource.delete');
    const owned = await this.database.db.transaction().execute(async (trx) => {
      const storage = await ownedStorage(trx, { projects: [projectId] });
      await projectRows.delete(trx, [projectId]);
      const details = { project_id: projectId, name: row.name };
      await this.audit.record({ type: 'project.deleted', actorUserId: actorUserId(actor), details }, trx);
      return storage;
    });
    await this.purger.purge(owned);
  }

  /** The project a definition names, among those the actor created. */
  async findOwnByName(actor: UserActor, definition: Pick<ProjectDefinition, 'name'>): Promise<string | undefined> {
    return projectRows.idByCreatorAndName(this.database.db, actor.userId, definition.name);
  }

  /**
   * Deletes the projects whose only owner is this user (used when a temporary user expires);
   * answers their storage, for the caller to purge once its transaction has committed.
   */
  async deleteSolelyOwnedBy(db: Kysely<Tables>, userId: string): Promise<OwnedStorage> {
    return this.deleteMany(db, await projectMemberRows.solelyOwnedBy(db, userId));
  }

  /**
   * Deletes these projects and everything in them, in the caller's transaction (a deleted
   * account's, users/deletion.ts); answers their storage, to purge once it has committed.
   */
  async deleteMany(db: Kysely<Tables>, projectIds: readonly string[]): Promise<OwnedStorage> {
    if (projectIds.length === 0) return { uploadKeys: [], tableIds: [] };
    const owned = await ownedStorage(db, { projects: [...projectIds] });
    await projectRows.delete(db, projectIds);
    return owned;
  }
}
