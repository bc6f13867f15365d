import type {
  CreateDashboardRequest,
  Dashboard,
  DashboardComponent,
  DashboardVersions,
  LayoutItem,
  SharingRequest,
  UpdateDashboardRequest,
} from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { DataCollectionQueries, TableSnapshot } from '../datacollections/queries.js';
import type { Database } from '../db/database.js';
import type { DataCollectionsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, type FieldProblem, notFound } from '../errors.js';
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
import { type DashboardRecord, DashboardsRepository } from './repository.js';

interface Access {
  record: DashboardRecord;
  /** The dashboard as the policy sees it, its project's members included. */
  resource: SharedResource;
  /** Its project, as the policy sees it. */
  project: SharedResource;
}

/**
 * Dashboards: a project's components on a grid, shared like projects (ARCHITECTURE.md §7, §11).
 * Every access goes through the policy, with the project's members counted in.
 */
export class DashboardsService {
  readonly repository: DashboardsRepository;

  constructor(
    private readonly database: Pick<Database, 'db'>,
    private readonly projects: Pick<ProjectsService, 'access' | 'repository'>,
    private readonly queries: Pick<DataCollectionQueries, 'fitProblems' | 'snapshotOf' | 'componentVersions'>,
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
    return present(await this.access(actor, dashboardId, 'resource.read'), actor);
  }

  /** Editors of the project create dashboards in it; the creator becomes the dashboard's owner. */
  async create(actor: UserActor, request: CreateDashboardRequest): Promise<Dashboard> {
    const project = await this.projects.access(actor, request.project_id, 'resource.edit');
    if (request.is_public) mayPublish(actor, projectResource(project));
    await this.checkCollections(request.project_id, request.components);
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
    });
    return this.get(actor, id);
  }

  /** Replaces title, description, components and layout (editors). */
  async update(actor: Actor, dashboardId: string, request: UpdateDashboardRequest): Promise<Dashboard> {
    const { record, project } = await this.access(actor, dashboardId, 'resource.edit');
    // Editors of the dashboard alone keep to what it already shows; a wider view needs the project.
    if (widens(componentsOf(record), request.components) && !can(actor, 'resource.read', project)) {
      throw new DomainError(
        'forbidden',
        "changing which collection or columns a component reads needs read access to the dashboard's project",
      );
    }
    await this.checkCollections(record.row.project_id, request.components);
    await this.database.db
      .updateTable('dashboards')
      .set({
        title: request.title,
        description: request.description,
        components: JSON.stringify(request.components),
        layout: JSON.stringify(request.layout),
        updated_at: isoNow(),
      })
      .where('id', '=', dashboardId)
      .execute();
    return this.get(actor, dashboardId);
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
    });
    // The sharing as written, even when it leaves the caller unable to read the dashboard again.
    return present(await this.load(dashboardId), actor);
  }

  async delete(actor: Actor, dashboardId: string): Promise<void> {
    await this.access(actor, dashboardId, 'resource.delete');
    await this.database.db.deleteFrom('dashboards').where('id', '=', dashboardId).execute();
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
 * project itself (its owners, admins), not only the dashboard (ARCHITECTURE §7, §11).
 */
function mayPublish(actor: Actor, project: SharedResource): void {
  if (!can(actor, 'resource.share', project)) {
    throw new DomainError('forbidden', 'making a dashboard public needs the right to share its project');
  }
}

/** What a component reads: a collection and its columns (`null`: all of them). */
type Reading = { collection: string; columns: readonly string[] | null };

function readings(components: readonly DashboardComponent[]): Reading[] {
  return components.flatMap(readingOf);
}

function readingOf(component: DashboardComponent): Reading[] {
  switch (component.type) {
    case 'text':
      return [];
    case 'table':
      return [{ collection: component.data_collection_id, columns: component.columns ?? null }];
    case 'figure': {
      const { x, y, color, size } = component;
      const columns = [x, y, color, size].filter((column) => column !== undefined);
      return [{ collection: component.data_collection_id, columns }];
    }
    case 'card':
      return [{ collection: component.data_collection_id, columns: component.column ? [component.column] : [] }];
    case 'interactive':
      return [{ collection: component.data_collection_id, columns: [component.column] }];
  }
}

/** Whether a component reading `have` already shows everything `wanted` reads. */
function covers(have: Reading, wanted: Reading): boolean {
  if (have.collection !== wanted.collection) return false;
  const { columns } = have;
  return columns === null || wanted.columns?.every((column) => columns.includes(column)) === true;
}

/** Whether `next` reads anything `current` does not: another collection, or more of its columns. */
function widens(current: readonly DashboardComponent[], next: readonly DashboardComponent[]): boolean {
  const shown = readings(current);
  return readings(next).some((wanted) => !shown.some((have) => covers(have, wanted)));
}

export function componentsOf(record: DashboardRecord): DashboardComponent[] {
  return JSON.parse(record.row.components) as DashboardComponent[];
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
    layout: JSON.parse(record.row.layout) as LayoutItem[],
    components: componentsOf(record),
    created_by: record.row.created_by,
    created_at: record.row.created_at,
    updated_at: record.row.updated_at,
  };
}
