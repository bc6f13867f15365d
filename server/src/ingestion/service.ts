import { hostname } from 'node:os';
import type { DataLocation, IngestionRun } from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { paginate } from '../db/paginate.js';
import type { IngestionRunsTable, WorkflowsTable } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import type { UpsertService } from '../deltatables/upsert.js';
import { DomainError, notFound } from '../errors.js';
import type { JobTools } from '../jobs/handlers.js';
import type { JobQueue } from '../jobs/queue.js';
import type { Actor, UserActor } from '../policy/actor.js';
import { authorize, can } from '../policy/policy.js';
import { asSharedResource } from '../projects/repository.js';
import type { ProjectsService } from '../projects/service.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { fileRows } from '../tables/files.js';
import { ingestionRunRows } from '../tables/ingestion-runs.js';
import { workflowRows } from '../tables/workflows.js';
import { type DataLocationGuard, locationsAt } from '../workflows/location-guard.js';
import { presentRun } from './presenters.js';
import { endExpiredRuns, endOrphanedRuns, endRunsOfEndedJobs } from './run-ends.js';
import { holdRunLease } from './run-lease.js';
import { RunRecord } from './run-record.js';
import { scanWorkflow } from './scanner.js';

export type Trigger = IngestionRunsTable['trigger'];

export interface TriggerAnswer {
  job_id: string | null;
  run_id: string;
  already_running: boolean;
}

/**
 * Ingestion (docs/architecture.md "Ingestion"): scan a project's workflow locations, register runs and files,
 * upsert every data collection, and record the whole as an ingestion run with its steps. At most
 * one ingestion per project is pending or running (a unique index decides, across replicas). A
 * run ends with its job: when the job is cancelled or fails, in the same transaction, so a run
 * whose job is gone never holds the project's one active slot. A run without a job (run in the
 * request) holds a lease its server renews, and ends once that lease expired (its server died).
 */
export class IngestionService {
  constructor(
    private readonly database: Database,
    private readonly config: {
      ingestion: Pick<Config['ingestion'], 'allowedRoots' | 'browserTrigger'>;
      /** `leaseSeconds` also bounds how long a synchronous run outlives its server. */
      jobs: Pick<Config['jobs'], 'enabled' | 'leaseSeconds'>;
    },
    private readonly projects: ProjectsService,
    private readonly upserts: UpsertService,
    private readonly jobs: JobQueue,
    private readonly locations: DataLocationGuard,
  ) {
    jobs.onEnded(endRunsOfEndedJobs);
  }

  /** Ends every run left active although its job has ended (startup repair); answers how many. */
  endOrphanedRuns(): Promise<number> {
    return endOrphanedRuns(this.database.db);
  }

  /** Ends every synchronous run whose server stopped renewing its lease (startup repair); answers how many. */
  endExpiredRuns(): Promise<number> {
    return endExpiredRuns(this.database.db);
  }

  /** Whether a project has anything to ingest: a workflow location, or registered files. */
  private async hasData(projectId: string): Promise<boolean> {
    if (await workflowRows.anyLocatedInProject(this.database.db, projectId)) return true;
    return fileRows.anyInProject(this.database.db, projectId);
  }

  async triggerStatus(actor: Actor, projectId: string) {
    const record = await this.projects.access(actor, projectId, 'resource.read');
    if (!this.config.jobs.enabled) return { enabled: false, available: false, reason: 'jobs_disabled' as const };
    if (!this.config.ingestion.browserTrigger) return { enabled: false, available: false, reason: 'disabled' as const };
    if (!can(actor, 'resource.edit', asSharedResource(record)))
      return { enabled: true, available: false, reason: 'forbidden' as const };
    if (!(await this.hasData(projectId))) return { enabled: true, available: false, reason: 'no_data' as const };
    return { enabled: true, available: true, reason: null };
  }

  /**
   * Starts an ingestion as a job, or answers the one already pending or running for the project.
   */
  async trigger(
    actor: Actor,
    projectId: string,
    options: { overwrite: boolean; trigger: Trigger },
  ): Promise<TriggerAnswer> {
    await this.projects.access(actor, projectId, 'resource.edit');
    authorize(actor, 'session.read_own');
    if (!(await this.hasData(projectId)))
      throw new DomainError('no_data', 'the project has neither data locations nor uploaded files');
    // A job whose worker died stays `running` until some worker's recovery sweep sees its lease
    // expired; with no live worker none will, and its run would hold the project for good.
    await this.jobs.recoverExpired();
    await endOrphanedRuns(this.database.db, projectId);
    // And a synchronous run whose server died, which nobody else ends.
    await endExpiredRuns(this.database.db, projectId);
    const active = await this.active(projectId);
    if (active) return { job_id: active.job_id, run_id: active.id, already_running: true };
    try {
      return await this.database.db.transaction().execute(async (trx) => {
        const runId = uuidv7();
        const job = await this.jobs.enqueue(
          'project.ingest',
          { run_id: runId },
          { userId: actor.userId, projectId },
          trx,
        );
        await ingestionRunRows.insert(trx, this.newRun(runId, projectId, job.job_id, actor, options));
        return { job_id: job.job_id, run_id: runId, already_running: false };
      });
    } catch (error) {
      // Another replica (or click) got there first: attach to its run.
      if (!isUniqueViolation(error)) throw error;
      const winner = await this.active(projectId);
      if (!winner) throw error;
      return { job_id: winner.job_id, run_id: winner.id, already_running: true };
    }
  }

  /** Runs an ingestion in this request (jobs off, or no async_mode) and answers the finished run. */
  async runNow(actor: Actor, projectId: string, options: { overwrite: boolean; trigger: Trigger }) {
    await this.projects.access(actor, projectId, 'resource.edit');
    authorize(actor, 'session.read_own');
    if (!(await this.hasData(projectId)))
      throw new DomainError('no_data', 'the project has neither data locations nor uploaded files');
    // A synchronous run whose server died holds the project until someone ends it: this trigger.
    await endExpiredRuns(this.database.db, projectId);
    const runId = uuidv7();
    try {
      await ingestionRunRows.insert(this.database.db, this.newRun(runId, projectId, null, actor, options));
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const active = await this.active(projectId);
      if (active) return { job_id: active.job_id, run_id: active.id, already_running: true };
      throw error;
    }
    const lease = holdRunLease(this.database.db, runId, this.config.jobs.leaseSeconds);
    try {
      await this.execute(runId, { signal: lease.signal, report: async () => undefined, checkpoint: lease.checkpoint });
    } finally {
      lease.stop();
    }
    return { job_id: null, run_id: runId, already_running: false, run: await this.present(runId, true) };
  }

  private newRun(
    runId: string,
    projectId: string,
    jobId: string | null,
    actor: UserActor,
    options: { overwrite: boolean; trigger: Trigger },
  ): IngestionRunsTable {
    return {
      id: runId,
      project_id: projectId,
      job_id: jobId,
      status: 'pending',
      trigger: options.trigger,
      triggered_by: actor.userId,
      overwrite: options.overwrite ? 1 : 0,
      steps: '[]',
      data_collections: '[]',
      error: null,
      source_paths: '[]',
      host: hostname(),
      created_at: isoNow(),
      started_at: null,
      finished_at: null,
      // A job holds its own lease; a run in the request holds this one (see `holdRunLease`).
      lease_expires_at: jobId === null ? isoAfterSeconds(this.config.jobs.leaseSeconds) : null,
    };
  }

  /** The project's run in progress: active itself, and (when it has a job) its job still pending or running. */
  private active(projectId: string) {
    return ingestionRunRows.activeOfProject(this.database.db, projectId);
  }

  /**
   * The work of one ingestion run: scan, then upsert every collection, recording each step. Ends
   * `success`, `partial` (some collections failed; each error recorded), `failed` or `cancelled`.
   * Answers the run status; throws when the whole run failed, so its job fails too.
   */
  async execute(runId: string, tools: JobTools): Promise<{ run_id: string; status: IngestionRunsTable['status'] }> {
    const run = await ingestionRunRows.find(this.database.db, runId);
    if (!run) throw notFound('ingestion run');
    // Writes only while the run is active: once its job was cancelled (which ends the run at once),
    // the task's late writes cannot turn it into a success or a failure.
    const record = new RunRecord(
      (values) => ingestionRunRows.updateWhileActive(this.database.db, runId, values),
      tools.signal,
    );
    await record.save({ status: 'running', started_at: isoNow() });
    try {
      const workflows = await workflowRows.ofProject(this.database.db, run.project_id);
      await this.scanLocations(run, workflows, record, tools);
      await this.upsertCollections(run, workflows, record, tools);
      return { run_id: runId, status: await record.finish() };
    } catch (error) {
      await record.fail(error);
      throw error;
    }
  }

  /** Scans each workflow's data location for runs and files (the first 30% of the progress). */
  private async scanLocations(
    run: IngestionRunsTable,
    workflows: WorkflowsTable[],
    record: RunRecord,
    tools: JobTools,
  ) {
    const located = workflows.filter((workflow) => workflow.data_location !== null);
    for (const [index, workflow] of located.entries()) {
      await tools.report({ step: `scan ${workflow.name}`, progress: (index / Math.max(1, located.length)) * 0.3 });
      await record.step(`scan ${workflow.name}`, async (step) => {
        // Who may read what can change after a location was declared (docs/architecture.md "Ingestion").
        await this.locations.authorizeScan(
          run.triggered_by,
          workflow.locations_declared_by,
          run.project_id,
          locationsAt(JSON.parse(workflow.data_location as string) as DataLocation, 'data_location'),
        );
        const summary = await scanWorkflow(this.database, this.config.ingestion.allowedRoots, workflow, {
          signal: tools.signal,
          onProgress: (detail) => void tools.report({ detail }).catch(() => undefined),
        });
        record.scanned(summary.sourcePaths);
        step.detail = `${summary.runs} runs, ${summary.files} files: ${summary.added} new, ${summary.changed} changed, ${summary.removed} removed`;
        if (summary.errors.length > 0) {
          throw new DomainError(
            'validation_failed',
            summary.errors.map((error) => `${error.location}: ${error.message}`).join('; '),
          );
        }
      });
    }
  }

  /** Upserts every collection of the workflows; one failing does not stop the others (the last 70%). */
  private async upsertCollections(
    run: IngestionRunsTable,
    workflows: WorkflowsTable[],
    record: RunRecord,
    tools: JobTools,
  ) {
    const ids = workflows.map((workflow) => workflow.id);
    const collections = await dataCollectionRows.ofWorkflows(this.database.db, ids);
    for (const [index, collection] of collections.entries()) {
      tools.signal.throwIfAborted();
      const progress = 0.3 + (index / Math.max(1, collections.length)) * 0.7;
      await tools.report({ step: `upsert ${collection.tag}`, detail: null, progress });
      const request = { data_collection_id: collection.id, overwrite: run.overwrite === 1 };
      try {
        const answer = await record.step(`upsert ${collection.tag}`, () =>
          this.upserts.run(collection, request, tools.signal, tools.checkpoint),
        );
        record.upserted(collection, answer);
      } catch (error) {
        if (tools.signal.aborted) throw error;
        record.upsertFailed(collection, error);
      }
    }
  }

  async listRuns(actor: Actor, projectId: string, query: { limit: number; skip: number }) {
    const record = await this.projects.access(actor, projectId, 'resource.read');
    const canEdit = can(actor, 'resource.edit', asSharedResource(record));
    // The list tells the truth about a run whose server died, even before anyone triggers again.
    await endExpiredRuns(this.database.db, projectId);
    return paginate(
      ingestionRunRows.ofProjectFiltered(this.database.db, projectId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      query,
      (row) => presentRun(row, canEdit),
    );
  }

  private async present(runId: string, canEdit: boolean): Promise<IngestionRun> {
    const row = await ingestionRunRows.find(this.database.db, runId);
    if (!row) throw notFound('ingestion run');
    return presentRun(row, canEdit);
  }
}
