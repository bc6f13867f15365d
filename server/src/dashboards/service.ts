import type {
  CreateDashboardRequest,
  Dashboard,
  DashboardComponent,
  DashboardListItem,
  DashboardSort,
  DashboardVersions,
  DuplicateDashboardRequest,
  SharingRequest,
  UpdateDashboardRequest,
} from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { type AuditLog, actorUserId } from '../audit/service.js';
import type { DataCollectionQueries } from '../datacollections/queries.js';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, type FieldProblem, notFound } from '../errors.js';
import type { MultiqcService } from '../multiqc/service.js';
import type { Actor, UserActor } from '../policy/actor.js';
import {
  authorize,
  can,
  dashboardResource,
  type ResourceAction,
  type SharedResource,
  tokenProjects,
} from '../policy/policy.js';
import { asSharedResource as projectResource } from '../projects/repository.js';
import type { ProjectsService } from '../projects/service.js';
import { asSharedResource } from '../sharing/members.js';
import { type CollectionChecks, checkCollections, collectionProblems } from './collection-checks.js';
import type { TreeFiles } from './data/tree-files.js';
import { dashboardVersions } from './data/versions.js';
import { projectOverview } from './overview.js';
import { type Access, colorsOf, componentsOf, layoutOf, present, tabsOf, type Versioned } from './presenter.js';
import { widenings } from './readings.js';

/** Where the dashboard's content is read from its record (kept importable from here). */
export { colorsOf, componentsOf, layoutOf, tabsOf, type Versioned };

import { dashboardMemberRows, dashboardRows } from '../tables/dashboards.js';
import { type DashboardRecord, DashboardsRepository } from './repository.js';
import { etagOf, type IfMatch, matchesRevision, preconditionFailed } from './revision.js';
import { recordRevision, type StoredContent } from './revision-records.js';
import { setPermissions } from './sharing.js';

/** Saves retried when another save slipped in between the read and the write (without `If-Match`). */
const SAVE_ATTEMPTS = 5;

/** Copies of copies followed to find an original; a longer chain reads as a lost original. */
const COPY_CHAIN_LIMIT = 8;

/** Where a new dashboard comes from: `copy_of` names the original of a duplicate. */
interface Origin {
  copy_of: string | null;
  /** 1: duplicated by someone who could not edit the project (migration 0014). */
  confined: 0 | 1;
}

const ORIGINAL: Origin = { copy_of: null, confined: 0 };

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
      'fitProblems' | 'dataProblems' | 'snapshotOf' | 'componentVersions' | 'summary' | 'profile'
    >,
    private readonly audit: AuditLog,
    /** MultiQC collections' plots, for the generated overview. */
    private readonly multiqc: Pick<MultiqcService, 'summary'>,
    /** Tree figures' Newick files, checked on save. */
    private readonly trees: Pick<TreeFiles, 'treeOf'>,
    /** How many revisions each dashboard's history keeps (SERVICE_DASHBOARD_REVISIONS_KEPT). */
    private readonly revisionsKept = 100,
  ) {
    this.repository = new DashboardsRepository(database.db);
  }

  /** Loads a dashboard and checks the actor may do `action` on it (404 if they may not even see it). */
  async access(actor: Actor, dashboardId: string, action: ResourceAction): Promise<Access> {
    const loaded = await this.load(dashboardId);
    authorize(actor, action, loaded.resource);
    return loaded;
  }

  /** A dashboard as the policy sees it now, whoever asks (404 when it or its project is gone). */
  async load(dashboardId: string): Promise<Access> {
    const access = await this.loadWithin(dashboardId, COPY_CHAIN_LIMIT);
    if (!access) throw notFound('dashboard');
    return access;
  }

  /**
   * `load`, following a confined copy to its original (whose readers keep the copy's members in);
   * `depth` bounds a chain of copies of copies, beyond which the original counts as gone.
   */
  private async loadWithin(dashboardId: string, depth: number): Promise<Access | undefined> {
    const record = await this.repository.find(dashboardId);
    if (!record) return undefined;
    const project = await this.projects.repository.find(record.row.project_id);
    if (!project) return undefined;
    return this.accessOf(record, projectResource(project), depth);
  }

  private async accessOf(record: DashboardRecord, project: SharedResource, depth: number): Promise<Access> {
    const own = asSharedResource(record.members, record.row.is_public === 1);
    if (record.row.confined !== 1) return { record, resource: dashboardResource(own, project), project };
    const { copy_of } = record.row;
    const original = copy_of === null || depth <= 0 ? undefined : await this.loadWithin(copy_of, depth - 1);
    const resource = dashboardResource(own, project, { original: original?.resource ?? null });
    return { record, resource, project };
  }

  async list(
    actor: Actor,
    query: {
      project_id?: string | undefined;
      q?: string | undefined;
      sort: DashboardSort;
      limit: number;
      skip: number;
    },
  ) {
    const { records, total } = await this.repository.listVisible({
      userId: actor.kind === 'user' ? actor.userId : null,
      admin: actor.kind === 'user' && actor.role === 'admin',
      includePublic: actor.kind === 'user' || actor.mayBrowsePublic,
      projectId: query.project_id,
      projectIds: tokenProjects(actor),
      q: query.q,
      sort: query.sort,
      limit: query.limit,
      skip: query.skip,
    });
    const projects = new Map<string, SharedResource>();
    for (const projectId of new Set(records.map((record) => record.row.project_id))) {
      const project = await this.projects.repository.find(projectId);
      if (project) projects.set(projectId, projectResource(project));
    }
    const items: DashboardListItem[] = [];
    for (const record of records) {
      const project = projects.get(record.row.project_id);
      if (!project) continue;
      const access = await this.accessOf(record, project, COPY_CHAIN_LIMIT);
      // A confined copy whose owner no longer reads its project or original is no longer theirs.
      if (can(actor, 'resource.read', access.resource)) {
        // A dashboard shared alone names no project its reader may not open.
        const projectName = can(actor, 'resource.read', project) ? record.projectName : null;
        items.push({ ...present(access, actor), project_name: projectName });
      }
    }
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
    if (request.is_public && !can(actor, 'resource.share', projectResource(project)))
      throw new DomainError('forbidden', 'making a dashboard public needs the right to share its project');
    const { template, ...content } = request;
    if (template === 'overview') {
      const { id, name, description } = project.row;
      Object.assign(
        content,
        await projectOverview(
          { database: this.database, repository: this.repository, queries: this.queries, multiqc: this.multiqc },
          actor,
          { id, name, description },
        ),
      );
    }
    await checkCollections(this.checks(), request.project_id, content.components);
    return this.read(actor, await this.insert(actor, ORIGINAL, content));
  }

  /**
   * A private copy owned by the caller, in the same project, for anyone who reads the original
   * (`POST /dashboards/{id}/duplicate`). The copy shows what the original shows; what its owner may
   * add to it later depends on whether they read the project (readings.ts). A copy by someone who
   * cannot edit the project is confined: theirs only while they read the project or the original,
   * and never shared or embedded (policy `dashboardResource`, `authorizeSharing`).
   */
  async duplicate(actor: UserActor, dashboardId: string, request: DuplicateDashboardRequest): Promise<Versioned> {
    const { record, project } = await this.access(actor, dashboardId, 'resource.read');
    const origin: Origin = { copy_of: record.row.id, confined: can(actor, 'resource.edit', project) ? 0 : 1 };
    const id = await this.insert(actor, origin, {
      project_id: record.row.project_id,
      title: request.title ?? copyTitle(record.row.title),
      description: record.row.description,
      is_public: false,
      tabs: tabsOf(record),
      components: componentsOf(record),
      layout: layoutOf(record),
      colors: colorsOf(record),
    });
    return this.read(actor, id);
  }

  /** Writes a new dashboard owned by the actor; answers its id. */
  private async insert(
    actor: UserActor,
    origin: Origin,
    request: Omit<CreateDashboardRequest, 'template'>,
  ): Promise<string> {
    const id = uuidv7();
    const now = isoNow();
    await this.database.db.transaction().execute(async (trx) => {
      await dashboardRows.insert(trx, {
        id,
        project_id: request.project_id,
        title: request.title,
        description: request.description,
        is_public: request.is_public ? 1 : 0,
        tabs: JSON.stringify(request.tabs),
        components: JSON.stringify(request.components),
        layout: JSON.stringify(request.layout),
        colors: JSON.stringify(request.colors ?? []),
        created_by: actor.userId,
        ...origin,
        created_at: now,
        updated_at: now,
      });
      await dashboardMemberRows.insert(trx, [{ dashboard_id: id, user_id: actor.userId, role: 'owner' }]);
      const content = await dashboardRows.find(trx, id);
      if (content) await this.keepRevision(trx, actor, { content, before: null, restoredFrom: null });
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
    /** The revision this save restores (history.ts), for its summary. */
    restoredFrom: number | null = null,
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
      await checkCollections(this.checks(), record.row.project_id, request.components);
      const content = {
        title: request.title,
        description: request.description,
        tabs: JSON.stringify(request.tabs),
        components: JSON.stringify(request.components),
        layout: JSON.stringify(request.layout),
        ...(request.colors === undefined ? {} : { colors: JSON.stringify(request.colors) }),
        updated_at: isoNow(),
        revision: record.row.revision + 1,
      };
      const written = await this.database.db.transaction().execute(async (trx) => {
        const saved = await dashboardRows.updateAtRevision(trx, dashboardId, record.row.revision, content);
        if (saved) {
          await this.recordUpdate(actor, record, content, trx);
          const after = { ...record.row, ...content };
          await this.keepRevision(trx, actor, { content: after, before: record.row, restoredFrom });
        }
        return saved;
      });
      if (written) {
        // What this save wrote, not a re-read that could already show a later save with our ETag.
        const saved = { ...access, record: { ...record, row: { ...record.row, ...content } } };
        return { dashboard: present(saved, actor), etag: etagOf(content.revision) };
      }
      if ((ifMatch !== undefined && !ifMatch.any) || attempt >= SAVE_ATTEMPTS) throw preconditionFailed();
    }
  }

  /** `PUT /dashboards/{id}/permissions`: see sharing.ts. */
  setPermissions(actor: Actor, dashboardId: string, request: SharingRequest, ifMatch?: IfMatch): Promise<Versioned> {
    return setPermissions(
      { dashboards: this, db: this.database.db, audit: this.audit },
      actor,
      dashboardId,
      request,
      ifMatch,
    );
  }

  /** Deletes a dashboard (owners); with `If-Match`, only at that revision (else 412). */
  async delete(actor: Actor, dashboardId: string, ifMatch?: IfMatch): Promise<void> {
    const { record } = await this.access(actor, dashboardId, 'resource.delete');
    if (!matchesRevision(ifMatch, record.row.revision)) throw preconditionFailed();
    const exact = ifMatch !== undefined && !ifMatch.any;
    await this.database.db.transaction().execute(async (trx) => {
      const deleted = await dashboardRows.delete(trx, dashboardId, exact ? record.row.revision : undefined);
      // Saved or shared since the ETag was read: nothing is deleted.
      if (exact && !deleted) throw preconditionFailed();
      const details = { dashboard_id: dashboardId, title: record.row.title, project_id: record.row.project_id };
      await this.audit.record({ type: 'dashboard.deleted', actorUserId: actorUserId(actor), details }, trx);
    });
  }

  /** The revision a save (or a creation) leaves in the dashboard's history (history.ts). */
  private keepRevision(
    trx: Kysely<Tables>,
    actor: Actor,
    save: {
      content: StoredContent & { id: string; revision: number; updated_at: string };
      before: StoredContent | null;
      restoredFrom: number | null;
    },
  ): Promise<void> {
    const { content } = save;
    return recordRevision(trx, {
      dashboardId: content.id,
      revision: content.revision,
      savedAt: content.updated_at,
      savedBy: actorUserId(actor),
      content,
      before: save.before,
      restoredFrom: save.restoredFrom,
      kept: this.revisionsKept,
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

  /** Problems of components with the project's collections (paths from `components[…]`), for an import's report. */
  collectionProblems(projectId: string, components: readonly DashboardComponent[]): Promise<FieldProblem[]> {
    return collectionProblems(this.checks(), projectId, components);
  }

  private checks(): CollectionChecks {
    return { repository: this.repository, queries: this.queries, trees: this.trees };
  }

  /** The commits of every collection the dashboard reads, for its readers (the version picker). */
  async versions(actor: Actor, dashboardId: string): Promise<DashboardVersions> {
    const { record } = await this.access(actor, dashboardId, 'resource.read');
    return dashboardVersions(this.database.db, this.queries, record.row.project_id, componentsOf(record));
  }
}

/** "Overview (copy)", kept within the 100 characters of a title. */
function copyTitle(title: string): string {
  const suffix = ' (copy)';
  return `${title.slice(0, 100 - suffix.length).trimEnd()}${suffix}`;
}
