import type {
  CreateDashboardRequest,
  Dashboard,
  DashboardComponent,
  DashboardVersions,
  DuplicateDashboardRequest,
  LayoutItem,
  SharingRequest,
  UpdateDashboardRequest,
} from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { type AuditLog, actorUserId, sharingDetails } from '../audit/service.js';
import type { DataCollectionQueries, TableSnapshot } from '../datacollections/queries.js';
import type { Database } from '../db/database.js';
import type { DataCollectionsTable, Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, type FieldProblem, notFound } from '../errors.js';
import type { MultiqcService } from '../multiqc/service.js';
import type { Actor, UserActor } from '../policy/actor.js';
import {
  authorize,
  can,
  dashboardResource,
  type ResourceAction,
  roleOn,
  type SharedResource,
} from '../policy/policy.js';
import { asSharedResource as projectResource } from '../projects/repository.js';
import type { ProjectsService } from '../projects/service.js';
import { asSharedResource, presentMembers, resolveMembers } from '../sharing/members.js';
import { dashboardVersions } from './data/versions.js';
import { projectOverview } from './overview.js';
import { widenings } from './readings.js';
import { type DashboardRecord, DashboardsRepository } from './repository.js';
import { etagOf, type IfMatch, matchesRevision, preconditionFailed } from './revision.js';

interface Access {
  record: DashboardRecord;
  /** The dashboard as the policy sees it, its project's members included. */
  resource: SharedResource;
  /** Its project, as the policy sees it. */
  project: SharedResource;
}

/** A dashboard as the caller sees it, with its ETag (the revision of its content). */
export interface Versioned {
  dashboard: Dashboard;
  etag: string;
}

/** Saves retried when another save slipped in between the read and the write (without `If-Match`). */
const SAVE_ATTEMPTS = 5;

/**
 * Dashboards: a project's components on a grid, shared like projects (docs/architecture.md "Permissions", "Dashboards").
 * Every access goes through the policy, with the project's members counted in.
 */
export class DashboardsService {
  readonly repository: DashboardsRepository;

  constructor(
    private readonly database: Pick<Database, 'db'>,
    private readonly projects: Pick<ProjectsService, 'access' | 'repository'>,
    private readonly queries: Pick<
      DataCollectionQueries,
      'fitProblems' | 'snapshotOf' | 'componentVersions' | 'summary'
    >,
    private readonly audit: AuditLog,
    /** MultiQC collections' plots, for the generated overview. */
    private readonly multiqc: Pick<MultiqcService, 'summary'>,
  ) {
    this.repository = new DashboardsRepository(database.db);
  }

  /** Loads a dashboard and checks the actor may do `action` on it (404 if they may not even see it). */
  async access(actor: Actor, dashboardId: string, action: ResourceAction): Promise<Access> {
    const loaded = await this.load(dashboardId);
    authorize(actor, action, loaded.resource);
    return loaded;
  }

  private async load(dashboardId: string): Promise<Access> {
    const record = await this.repository.find(dashboardId);
    if (!record) throw notFound('dashboard');
    const project = await this.projects.repository.find(record.row.project_id);
    if (!project) throw notFound('dashboard');
    const projectAccess = projectResource(project);
    const resource = dashboardResource(asSharedResource(record.members, record.row.is_public === 1), projectAccess);
    return { record, resource, project: projectAccess };
  }

  async list(actor: Actor, query: { project_id?: string | undefined; limit: number; skip: number }) {
    const { records, total } = await this.repository.listVisible({
      userId: actor.kind === 'user' ? actor.userId : null,
      admin: actor.kind === 'user' && actor.role === 'admin',
      includePublic: actor.kind === 'user' || actor.mayBrowsePublic,
      projectId: query.project_id,
      limit: query.limit,
      skip: query.skip,
    });
    const projects = new Map<string, SharedResource>();
    for (const projectId of new Set(records.map((record) => record.row.project_id))) {
      const project = await this.projects.repository.find(projectId);
      if (project) projects.set(projectId, projectResource(project));
    }
    const items = records.flatMap((record) => {
      const project = projects.get(record.row.project_id);
      if (!project) return [];
      const resource = dashboardResource(asSharedResource(record.members, record.row.is_public === 1), project);
      return [present({ record, resource, project }, actor)];
    });
    return { items, total, limit: query.limit, skip: query.skip };
  }

  async get(actor: Actor, dashboardId: string): Promise<Dashboard> {
    return (await this.read(actor, dashboardId)).dashboard;
  }

  /** The dashboard and its ETag (`GET /dashboards/{id}`). */
  async read(actor: Actor, dashboardId: string): Promise<Versioned> {
    const access = await this.access(actor, dashboardId, 'resource.read');
    return { dashboard: present(access, actor), etag: etagOf(access.record.row.revision) };
  }

  /** Editors of the project create dashboards in it; the creator becomes the dashboard's owner. */
  async create(actor: UserActor, request: CreateDashboardRequest): Promise<Dashboard> {
    return (await this.createVersioned(actor, request)).dashboard;
  }

  async createVersioned(actor: UserActor, request: CreateDashboardRequest): Promise<Versioned> {
    const project = await this.projects.access(actor, request.project_id, 'resource.edit');
    if (request.is_public) mayPublish(actor, projectResource(project));
    const { template, ...content } = request;
    if (template === 'overview') {
      const { id, name, description } = project.row;
      Object.assign(
        content,
        await projectOverview({ repository: this.repository, queries: this.queries, multiqc: this.multiqc }, actor, {
          id,
          name,
          description,
        }),
      );
    }
    await this.checkCollections(request.project_id, content.components);
    return this.read(actor, await this.insert(actor, content));
  }

  /**
   * A private copy owned by the caller, in the same project, for anyone who reads the original
   * (`POST /dashboards/{id}/duplicate`). The copy shows what the original shows; what its owner may
   * add to it later depends on whether they read the project (readings.ts).
   */
  async duplicate(actor: UserActor, dashboardId: string, request: DuplicateDashboardRequest): Promise<Versioned> {
    const { record } = await this.access(actor, dashboardId, 'resource.read');
    const id = await this.insert(actor, {
      project_id: record.row.project_id,
      title: request.title ?? copyTitle(record.row.title),
      description: record.row.description,
      is_public: false,
      components: componentsOf(record),
      layout: layoutOf(record),
    });
    return this.read(actor, id);
  }

  /** Writes a new dashboard owned by the actor; answers its id. */
  private async insert(actor: UserActor, request: Omit<CreateDashboardRequest, 'template'>): Promise<string> {
    const id = uuidv7();
    const now = isoNow();
    await this.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('dashboards')
        .values({
          id,
          project_id: request.project_id,
          title: request.title,
          description: request.description,
          is_public: request.is_public ? 1 : 0,
          components: JSON.stringify(request.components),
          layout: JSON.stringify(request.layout),
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await trx
        .insertInto('dashboard_members')
        .values({ dashboard_id: id, user_id: actor.userId, role: 'owner' })
        .execute();
      const details = { dashboard_id: id, title: request.title, project_id: request.project_id };
      await this.audit.record({ type: 'dashboard.created', actorUserId: actor.userId, details }, trx);
    });
    return id;
  }

  /**
   * Replaces title, description, components and layout (editors). With `If-Match`, only when the
   * dashboard is still at a revision it names (else 412). The UPDATE compares-and-sets the
   * revision it read, so the checks below always hold for what it replaces; without `If-Match` a
   * save that lost that race is simply checked and tried again.
   */
  async update(
    actor: Actor,
    dashboardId: string,
    request: UpdateDashboardRequest,
    ifMatch?: IfMatch,
  ): Promise<Versioned> {
    for (let attempt = 1; ; attempt++) {
      const access = await this.access(actor, dashboardId, 'resource.edit');
      const { record, project } = access;
      if (!matchesRevision(ifMatch, record.row.revision)) throw preconditionFailed();
      if (!can(actor, 'resource.read', project)) {
        const widened = widenings(componentsOf(record), request.components);
        if (widened.length > 0) {
          throw new DomainError(
            'forbidden',
            `showing more of the project than this dashboard already shows needs read access to the project: ${widened.join('; ')}`,
          );
        }
      }
      await this.checkCollections(record.row.project_id, request.components);
      const content = {
        title: request.title,
        description: request.description,
        components: JSON.stringify(request.components),
        layout: JSON.stringify(request.layout),
        updated_at: isoNow(),
        revision: record.row.revision + 1,
      };
      const written = await this.database.db.transaction().execute(async (trx) => {
        const answer = await trx
          .updateTable('dashboards')
          .set(content)
          .where('id', '=', dashboardId)
          .where('revision', '=', record.row.revision)
          .executeTakeFirst();
        if (Number(answer.numUpdatedRows) === 1) await this.recordUpdate(actor, record, content, trx);
        return answer;
      });
      if (Number(written.numUpdatedRows) === 1) {
        // What this save wrote, not a re-read that could already show a later save with our ETag.
        const saved = { ...access, record: { ...record, row: { ...record.row, ...content } } };
        return { dashboard: present(saved, actor), etag: etagOf(content.revision) };
      }
      if ((ifMatch !== undefined && !ifMatch.any) || attempt >= SAVE_ATTEMPTS) throw preconditionFailed();
    }
  }

  /** Replaces the dashboard's own member lists and its public switch (owners). */
  async setPermissions(actor: Actor, dashboardId: string, request: SharingRequest): Promise<Dashboard> {
    const { record, project } = await this.access(actor, dashboardId, 'resource.share');
    if (request.is_public && record.row.is_public !== 1) mayPublish(actor, project);
    const members = await resolveMembers(this.database.db, request);
    await this.database.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('dashboard_members').where('dashboard_id', '=', dashboardId).execute();
      await trx
        .insertInto('dashboard_members')
        .values([...members].map(([userId, role]) => ({ dashboard_id: dashboardId, user_id: userId, role })))
        .execute();
      await trx
        .updateTable('dashboards')
        .set({ is_public: request.is_public ? 1 : 0, updated_at: isoNow() })
        .where('id', '=', dashboardId)
        .execute();
      const details = {
        dashboard_id: dashboardId,
        title: record.row.title,
        project_id: record.row.project_id,
        ...sharingDetails(members, request.is_public),
      };
      await this.audit.record({ type: 'dashboard.shared', actorUserId: actorUserId(actor), details }, trx);
    });
    // The sharing as written, even when it leaves the caller unable to read the dashboard again.
    return present(await this.load(dashboardId), actor);
  }

  async delete(actor: Actor, dashboardId: string): Promise<void> {
    const { record } = await this.access(actor, dashboardId, 'resource.delete');
    await this.database.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('dashboards').where('id', '=', dashboardId).execute();
      const details = { dashboard_id: dashboardId, title: record.row.title, project_id: record.row.project_id };
      await this.audit.record({ type: 'dashboard.deleted', actorUserId: actorUserId(actor), details }, trx);
    });
  }

  /** The log's line for a save: what it renamed, and its revision (a content change is one more). */
  private async recordUpdate(
    actor: Actor,
    record: DashboardRecord,
    content: { title: string; description: string; revision: number },
    trx: Kysely<Tables>,
  ) {
    const { row } = record;
    const details = {
      dashboard_id: row.id,
      title: content.title,
      project_id: row.project_id,
      revision: content.revision,
      ...(content.title === row.title ? {} : { renamed_from: row.title }),
      ...(content.description === row.description ? {} : { description_changed: true }),
    };
    await this.audit.record({ type: 'dashboard.updated', actorUserId: actorUserId(actor), details }, trx);
  }

  /** The commits of every collection the dashboard reads, for its readers (the version picker). */
  async versions(actor: Actor, dashboardId: string): Promise<DashboardVersions> {
    const { record } = await this.access(actor, dashboardId, 'resource.read');
    return dashboardVersions(this.database.db, this.queries, record.row.project_id, componentsOf(record));
  }

  /**
   * Components may only show data collections of the dashboard's project, and the columns a
   * figure, card or filter reads must exist in its collection's table with a type it can use
   * (a collection without a table yet is checked when its data is asked for).
   */
  private async checkCollections(projectId: string, components: readonly DashboardComponent[]): Promise<void> {
    const wanted = components.flatMap((component) => (component.type === 'text' ? [] : [component.data_collection_id]));
    const rows = await this.repository.collectionRowsOfProject(projectId, wanted);
    const known = new Map(rows.map((row) => [row.id, row]));
    const snapshots = new Map<string, Promise<TableSnapshot>>();
    const snapshotOf = (row: DataCollectionsTable) => {
      const loaded = snapshots.get(row.id) ?? this.queries.snapshotOf(row);
      snapshots.set(row.id, loaded);
      return loaded;
    };
    const problems: FieldProblem[] = [];
    for (const [index, component] of components.entries()) {
      if (component.type === 'text') continue;
      const row = known.get(component.data_collection_id);
      if (row === undefined) {
        problems.push({
          path: `body.components[${index}].data_collection_id`,
          message: 'no data collection of this project has this id',
        });
        continue;
      }
      if (component.type === 'multiqc') {
        if (row.type !== 'multiqc') {
          problems.push({
            path: `body.components[${index}].data_collection_id`,
            message: 'a multiqc component reads a MultiQC collection (type multiqc), not a table',
          });
        }
        continue;
      }
      if (component.type === 'table') continue;
      const snapshot = await snapshotOf(row);
      if (snapshot.snapshot === null) continue;
      for (const problem of this.queries.fitProblems(snapshot, component)) {
        problems.push({ path: `body.components[${index}].${problem.field}`, message: problem.message });
      }
    }
    if (problems.length > 0) {
      throw new DomainError(
        'validation_failed',
        "components may only show the project's data collections, with columns their tables have",
        problems,
      );
    }
  }
}

/**
 * Making a dashboard public opens its tables to everyone: that takes the right to share the
 * project itself (its owners, admins), not only the dashboard (docs/architecture.md "Permissions", "Dashboards").
 */
function mayPublish(actor: Actor, project: SharedResource): void {
  if (!can(actor, 'resource.share', project)) {
    throw new DomainError('forbidden', 'making a dashboard public needs the right to share its project');
  }
}

/** "Overview (copy)", kept within the 100 characters of a title. */
function copyTitle(title: string): string {
  const suffix = ' (copy)';
  return `${title.slice(0, 100 - suffix.length).trimEnd()}${suffix}`;
}

export function componentsOf(record: DashboardRecord): DashboardComponent[] {
  return JSON.parse(record.row.components) as DashboardComponent[];
}

export function layoutOf(record: DashboardRecord): LayoutItem[] {
  return JSON.parse(record.row.layout) as LayoutItem[];
}

function present({ record, resource, project }: Access, actor: Actor): Dashboard {
  // Only ever called for dashboards the actor can read, so a role exists.
  const role = roleOn(actor, resource);
  return {
    dashboard_id: record.row.id,
    project_id: record.row.project_id,
    title: record.row.title,
    description: record.row.description,
    is_public: record.row.is_public === 1,
    permissions: presentMembers(record.members, role),
    my_role: role,
    project_role: roleOn(actor, project),
    layout: layoutOf(record),
    components: componentsOf(record),
    created_by: record.row.created_by,
    created_at: record.row.created_at,
    updated_at: record.row.updated_at,
  };
}
