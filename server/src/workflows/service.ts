import type { DataLocation } from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { paginate } from '../db/paginate.js';
import type { Tables, WorkflowsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import { assertLocationsAllowed } from '../locations/allowed-roots.js';
import { compileRunsRegex } from '../locations/patterns.js';
import { ownedStorage, type Scope, type StoragePurger } from '../maintenance/owned-storage.js';
import type { Actor } from '../policy/actor.js';
import { authorize, can, type ResourceAction } from '../policy/policy.js';
import { asSharedResource } from '../projects/repository.js';
import type { ProjectsService } from '../projects/service.js';
import { runRows } from '../tables/runs.js';
import { runConfigurationRows, workflowRows } from '../tables/workflows.js';
import type { DataLocationGuard } from './location-guard.js';
import { locationsAt, sameDataLocation } from './location-guard.js';
import { presentRun, presentRunConfiguration, presentWorkflow } from './presenters.js';
import { checkTiming, storedTiming, type Timing, timingColumns } from './timing-columns.js';

export interface WorkflowInput extends Timing {
  name: string;
  engine?: { name: string; version?: string | undefined } | null | undefined;
  data_location?: DataLocation | null | undefined;
}

/** How a workflow's engine and data location are stored (JSON text, or null when absent). */
export function workflowColumns(input: Pick<WorkflowInput, 'engine' | 'data_location'>) {
  return {
    engine: input.engine ? JSON.stringify(input.engine) : null,
    data_location: input.data_location ? JSON.stringify(input.data_location) : null,
  };
}

/**
 * The timing columns an update writes: none when it changes neither the schedule nor the watch
 * (their due times stay), else both, re-timed from now and set by `userId`. The result is checked
 * as a whole, so removing the data location of a watched workflow is refused too.
 */
function timingChanges(current: WorkflowsTable, changes: Partial<WorkflowInput>, userId: string) {
  const stored = storedTiming(current);
  const timing = {
    schedule: changes.schedule === undefined ? stored.schedule : changes.schedule,
    watch: changes.watch === undefined ? stored.watch : changes.watch,
  };
  const located = changes.data_location === undefined ? current.data_location !== null : Boolean(changes.data_location);
  checkTiming(timing, located, 'body');
  return changes.schedule === undefined && changes.watch === undefined ? {} : timingColumns(timing, userId);
}

/** Workflows of a project, their run configurations and their runs. */
export class WorkflowsService {
  constructor(
    private readonly database: Database,
    private readonly config: { ingestion: Pick<Config['ingestion'], 'allowedRoots'> },
    private readonly projects: ProjectsService,
    private readonly purger: StoragePurger,
    readonly locations: DataLocationGuard,
  ) {}

  /** Deletes rows (cascading), then, once that committed, the storage that was theirs. */
  private async deleteWithStorage(scope: Scope, remove: (trx: Kysely<Tables>) => Promise<unknown>): Promise<void> {
    const owned = await this.database.db.transaction().execute(async (trx) => {
      const storage = await ownedStorage(trx, scope);
      await remove(trx);
      return storage;
    });
    await this.purger.purge(owned);
  }

  /** Loads a workflow and checks `action` on its project. */
  async access(actor: Actor, workflowId: string, action: ResourceAction): Promise<WorkflowsTable> {
    const row = await workflowRows.find(this.database.db, workflowId);
    if (!row) throw notFound('workflow');
    await this.projects.access(actor, row.project_id, action);
    return row;
  }

  validateLocation(dataLocation: DataLocation | null | undefined, pathPrefix: string): void {
    if (!dataLocation) return;
    assertLocationsAllowed(dataLocation.locations, this.config.ingestion.allowedRoots, `${pathPrefix}.locations`);
    if (dataLocation.runs_regex !== undefined) compileRunsRegex(dataLocation.runs_regex, `${pathPrefix}.runs_regex`);
  }

  /** Reads the project (404 if the actor may not); whether they may see its server paths. */
  private async readWithPaths(actor: Actor, projectId: string): Promise<boolean> {
    const project = await this.projects.access(actor, projectId, 'resource.read');
    return can(actor, 'resource.edit', asSharedResource(project));
  }

  async list(actor: Actor, projectId: string, query: { limit: number; skip: number }) {
    const showPaths = await this.readWithPaths(actor, projectId);
    return paginate(
      workflowRows.ofProjectFiltered(this.database.db, projectId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      query,
      (row) => presentWorkflow(row, showPaths),
    );
  }

  /**
   * Inserts a workflow (inside a caller's transaction when given); `name_taken` on a duplicate name.
   * `declaredBy`: the user declaring its data location, re-checked at every scan.
   */
  async insert(
    projectId: string,
    input: WorkflowInput,
    declaredBy: string,
    db: Kysely<Tables> = this.database.db,
  ): Promise<string> {
    this.validateLocation(input.data_location, 'body.data_location');
    checkTiming(input, Boolean(input.data_location), 'body');
    const id = uuidv7();
    const now = isoNow();
    try {
      await workflowRows.insert(db, {
        id,
        project_id: projectId,
        name: input.name,
        ...workflowColumns(input),
        ...timingColumns(input, declaredBy),
        locations_declared_by: input.data_location ? declaredBy : null,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new DomainError('name_taken', 'the project already has a workflow with this name');
      throw error;
    }
    return id;
  }

  async create(actor: Actor, projectId: string, input: WorkflowInput) {
    await this.projects.access(actor, projectId, 'resource.edit');
    authorize(actor, 'session.read_own');
    this.validateLocation(input.data_location, 'body.data_location');
    await this.locations.authorizeDeclared(actor, projectId, locationsAt(input.data_location, 'body.data_location'));
    return this.get(actor, await this.insert(projectId, input, actor.userId));
  }

  async get(actor: Actor, workflowId: string) {
    const row = await this.access(actor, workflowId, 'resource.read');
    return presentWorkflow(row, await this.readWithPaths(actor, row.project_id));
  }

  async update(actor: Actor, workflowId: string, changes: Partial<WorkflowInput>) {
    const current = await this.access(actor, workflowId, 'resource.edit');
    authorize(actor, 'session.read_own');
    this.validateLocation(changes.data_location, 'body.data_location');
    const declares =
      changes.data_location !== undefined && !sameDataLocation(current.data_location, changes.data_location);
    if (declares) {
      await this.locations.authorizeDeclared(
        actor,
        current.project_id,
        locationsAt(changes.data_location, 'body.data_location'),
      );
    }
    try {
      await workflowRows.update(this.database.db, workflowId, {
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.engine === undefined ? {} : { engine: changes.engine ? JSON.stringify(changes.engine) : null }),
        ...(declares
          ? {
              data_location: changes.data_location ? JSON.stringify(changes.data_location) : null,
              locations_declared_by: changes.data_location ? actor.userId : null,
            }
          : {}),
        ...timingChanges(current, changes, actor.userId),
        updated_at: isoNow(),
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new DomainError('name_taken', 'the project already has a workflow with this name');
      throw error;
    }
    return this.get(actor, workflowId);
  }

  async delete(actor: Actor, workflowId: string): Promise<void> {
    await this.access(actor, workflowId, 'resource.edit');
    await this.deleteWithStorage({ workflows: [workflowId] }, (trx) => workflowRows.delete(trx, workflowId));
  }

  async listRunConfigurations(actor: Actor, workflowId: string, query: { limit: number; skip: number }) {
    await this.access(actor, workflowId, 'resource.read');
    return paginate(
      runConfigurationRows.ofWorkflowFiltered(this.database.db, workflowId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      query,
      presentRunConfiguration,
    );
  }

  /** Saves a parameter set as the next version of its name; racing saves get consecutive versions. */
  async createRunConfiguration(
    actor: Actor,
    workflowId: string,
    input: { name: string; parameters: Record<string, unknown> },
  ) {
    await this.access(actor, workflowId, 'resource.edit');
    for (let attempt = 0; attempt < 5; attempt++) {
      const latest = await runConfigurationRows.latestVersion(this.database.db, workflowId, input.name);
      const row = {
        id: uuidv7(),
        workflow_id: workflowId,
        name: input.name,
        version: latest + 1,
        parameters: JSON.stringify(input.parameters),
        created_at: isoNow(),
      };
      try {
        await runConfigurationRows.insert(this.database.db, row);
        return presentRunConfiguration(row);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    throw new DomainError('service_unavailable', 'too many concurrent saves of this run configuration; try again');
  }

  async listRuns(actor: Actor, workflowId: string, query: { limit: number; skip: number }) {
    const workflow = await this.access(actor, workflowId, 'resource.read');
    const showPaths = await this.readWithPaths(actor, workflow.project_id);
    return paginate(
      runRows.ofWorkflowFiltered(this.database.db, workflowId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      query,
      (row) => presentRun(row, showPaths),
    );
  }

  private async accessRun(actor: Actor, runId: string, action: ResourceAction) {
    const run = await runRows.find(this.database.db, runId);
    if (!run) throw notFound('run');
    const workflow = await this.access(actor, run.workflow_id, action);
    return { run, workflow };
  }

  async getRun(actor: Actor, runId: string) {
    const { run, workflow } = await this.accessRun(actor, runId, 'resource.read');
    return presentRun(run, await this.readWithPaths(actor, workflow.project_id));
  }

  async deleteRun(actor: Actor, runId: string): Promise<void> {
    await this.accessRun(actor, runId, 'resource.edit');
    await this.deleteWithStorage({ runs: [runId] }, (trx) => runRows.delete(trx, runId));
  }
}
