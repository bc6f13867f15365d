import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';
import type { WorkflowsTable } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { IngestionService, Trigger } from '../ingestion/service.js';
import type { UserActor } from '../policy/actor.js';
import { workflowRows } from '../tables/workflows.js';
import type { UsersRepository } from '../users/repository.js';
import { nextScheduledAt, nextWatchAt } from '../workflows/timing.js';
import { storedTiming } from '../workflows/timing-columns.js';
import { listingFingerprint } from './fingerprint.js';

/** What one due schedule or watch came to in this process. */
export interface TickOutcome {
  workflow_id: string;
  trigger: 'schedule' | 'watch';
  outcome: 'started' | 'claimed_elsewhere' | 'unchanged' | 'skipped';
  /** Why it was skipped: the previous run still going, the user who set it gone or no longer allowed. */
  reason?: string;
  run_id?: string;
}

export interface SchedulerDeps {
  database: Pick<Database, 'db'>;
  ingestion: Pick<IngestionService, 'trigger'>;
  users: Pick<UsersRepository, 'findById'>;
  allowedRoots: readonly string[];
  log: FastifyBaseLogger;
}

/**
 * Starts the ingestions that workflows' schedules and watches make due (docs/data.md "Schedules
 * and watched folders"). Every process with workers looks every few seconds; an occurrence is
 * started by the one process that moves its due time forward (`workflowRows.claim`), so each runs
 * once however many look. A run starts as the user who set the schedule, with their rights.
 */
export class Scheduler {
  constructor(private readonly deps: SchedulerDeps) {}

  /** Starts what is due at `now`; answers what became of each due occurrence here. */
  async tick(now = new Date()): Promise<TickOutcome[]> {
    const at = now.toISOString();
    const outcomes: TickOutcome[] = [];
    for (const workflow of await workflowRows.due(this.deps.database.db, at)) {
      if (workflow.schedule_next_at !== null && workflow.schedule_next_at <= at)
        outcomes.push(await this.scheduled(workflow, workflow.schedule_next_at, now));
      if (workflow.watch_next_at !== null && workflow.watch_next_at <= at)
        outcomes.push(await this.watched(workflow, workflow.watch_next_at, now));
    }
    return outcomes;
  }

  private async scheduled(workflow: WorkflowsTable, due: string, now: Date): Promise<TickOutcome> {
    const { schedule } = storedTiming(workflow);
    const next = schedule === null ? null : nextScheduledAt(schedule, now);
    if (!(await workflowRows.claim(this.deps.database.db, workflow.id, 'schedule_next_at', due, next)))
      return { workflow_id: workflow.id, trigger: 'schedule', outcome: 'claimed_elsewhere' };
    return this.start(workflow, 'schedule');
  }

  /** A watch runs only when the listing changed since it last looked; its first look only remembers it. */
  private async watched(workflow: WorkflowsTable, due: string, now: Date): Promise<TickOutcome> {
    const { watch } = storedTiming(workflow);
    const next = watch === null ? null : nextWatchAt(watch, now);
    const db = this.deps.database.db;
    if (!(await workflowRows.claim(db, workflow.id, 'watch_next_at', due, next)))
      return { workflow_id: workflow.id, trigger: 'watch', outcome: 'claimed_elsewhere' };
    const fingerprint = await listingFingerprint(workflow.data_location, this.deps.allowedRoots);
    if (fingerprint === workflow.watch_fingerprint)
      return { workflow_id: workflow.id, trigger: 'watch', outcome: 'unchanged' };
    if (workflow.watch_fingerprint === null) {
      await workflowRows.setWatchFingerprint(db, workflow.id, fingerprint);
      return { workflow_id: workflow.id, trigger: 'watch', outcome: 'unchanged', reason: 'first_look' };
    }
    const outcome = await this.start(workflow, 'watch');
    // A change seen while it could not start (a run still going) is looked at again next time.
    if (outcome.outcome === 'started') await workflowRows.setWatchFingerprint(db, workflow.id, fingerprint);
    return outcome;
  }

  private async start(workflow: WorkflowsTable, trigger: Extract<Trigger, 'schedule' | 'watch'>): Promise<TickOutcome> {
    const outcome = { workflow_id: workflow.id, trigger };
    const actor = await this.setter(workflow);
    if (actor === null) return this.skipped(outcome, 'the user who set it is gone or disabled');
    try {
      const started = await this.deps.ingestion.trigger(actor, workflow.project_id, { overwrite: false, trigger });
      if (started.already_running) return this.skipped(outcome, 'the previous run is still going');
      this.deps.log.info({ ...outcome, run_id: started.run_id }, 'started a scheduled ingestion');
      return { ...outcome, outcome: 'started', run_id: started.run_id };
    } catch (error) {
      // The setter lost the right to edit the project, or it has nothing to ingest: skip, say why.
      if (error instanceof DomainError) return this.skipped(outcome, error.message);
      throw error;
    }
  }

  private skipped(outcome: Pick<TickOutcome, 'workflow_id' | 'trigger'>, reason: string): TickOutcome {
    this.deps.log.warn({ ...outcome, reason }, 'skipped a scheduled ingestion');
    return { ...outcome, outcome: 'skipped', reason };
  }

  /** The user who set the schedule, as the actor its runs start as; null when gone, disabled or expired. */
  private async setter(workflow: WorkflowsTable): Promise<UserActor | null> {
    if (workflow.schedule_set_by === null) return null;
    const user = await this.deps.users.findById(workflow.schedule_set_by);
    const expired = user?.expires_at != null && user.expires_at <= new Date().toISOString();
    if (!user || user.disabled === 1 || expired) return null;
    return { kind: 'user', userId: user.id, role: user.role, isTemporary: user.is_temporary === 1, sessionId: null };
  }
}

/**
 * Looks for due schedules and watches every `tickSeconds` (SERVICE_SCHEDULES_TICK_SECONDS), in a
 * process that runs jobs; answers a function that stops looking. A failed look is logged and the
 * next one tries again.
 */
export function startScheduler(scheduler: Scheduler, log: FastifyBaseLogger, tickSeconds: number): () => void {
  let running = false;
  const look = () => {
    if (running) return;
    running = true;
    scheduler
      .tick()
      .catch((error: unknown) => log.error({ err: error }, 'looking for scheduled ingestions failed'))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(look, tickSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
