import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoAfterSeconds } from '../db/time.js';
import { DomainError } from '../errors.js';
import { ingestionRunRows } from '../tables/ingestion-runs.js';

/** How often a synchronous run renews its lease: as often as a job's heartbeat (jobs/worker-pool.ts). */
export const RUN_HEARTBEAT_MS = 500;

/** The run was ended by someone else while it worked: its lease had expired (see `endExpiredRuns`). */
export class RunLeaseLost extends DomainError {
  constructor() {
    super('service_unavailable', 'the ingestion run was ended as abandoned (its lease expired) while it worked');
    this.name = 'RunLeaseLost';
  }
}

/** The lease a synchronous ingestion run holds while its server works on it. */
export interface RunLease {
  /** Aborted once the run is found ended by someone else; the run's work stops and commits nothing more. */
  readonly signal: AbortSignal;
  /** Renews the lease now; throws when the run is no longer this server's (before a commit). */
  checkpoint(): Promise<void>;
  /** Stops the heartbeat (the run has ended). */
  stop(): void;
}

/**
 * Renews a synchronous run's lease every `RUN_HEARTBEAT_MS` while its server works, the way a
 * worker renews a job's: a server killed mid-run stops renewing, and once the lease expired the
 * run is ended by whoever looks next (startup, the trigger, the run list). Should this server
 * outlive its lease (a stall) and find its run ended, it aborts the work: nothing more is written.
 */
export function holdRunLease(db: Kysely<Tables>, runId: string, leaseSeconds: number): RunLease {
  const controller = new AbortController();
  const renew = async (): Promise<boolean> => {
    const held = await ingestionRunRows.renewLease(db, runId, isoAfterSeconds(leaseSeconds));
    if (!held && !controller.signal.aborted) controller.abort(new RunLeaseLost());
    return held;
  };
  // A failed renewal (the database away for a moment) is not a lost lease: the next one may succeed.
  const heartbeat = setInterval(() => void renew().catch(() => undefined), RUN_HEARTBEAT_MS);
  heartbeat.unref();
  return {
    signal: controller.signal,
    async checkpoint() {
      await renew();
      controller.signal.throwIfAborted();
    },
    stop: () => clearInterval(heartbeat),
  };
}
