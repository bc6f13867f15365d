import type { FastifyBaseLogger } from 'fastify';
import { purgeExpiredCredentials } from '../auth/expired-credentials.js';
import type { TemporaryUsers } from '../auth/temporary-users.js';
import type { Database } from '../db/database.js';
import { purgeStaleLiveRecords } from './live-retention.js';
import type { StoragePurger } from './owned-storage.js';

const EVERY_MS = 5 * 60_000;

export interface PeriodicCleanupDeps {
  database: Pick<Database, 'db'>;
  temporaryUsers: Pick<TemporaryUsers, 'removeExpired'>;
  purger: Pick<StoragePurger, 'sweepLocalCopies'>;
  /** Alerts (alerts/service.ts), described here: maintenance sits below the services. */
  alerts: { resumeStaleWebhooks(): Promise<number> };
}

/**
 * Every few minutes: removes expired temporary users (unless `temporaryUsers` is false), deletes
 * expired OAuth states, sign-in tickets, ended sessions with their refresh tokens and expired
 * personal access tokens, live events past the resume window and lapsed stream leases, and drops
 * this process's local copies of stored objects whose owner was deleted, wherever that happened;
 * and takes over the alert webhooks a stopped process left between their tries.
 * Every replica and worker runs it; both are safe to run concurrently, and a random offset keeps
 * replicas from all waking at once.
 */
export function startPeriodicCleanup(
  context: PeriodicCleanupDeps,
  log: FastifyBaseLogger,
  options: { temporaryUsers?: boolean } = {},
): () => void {
  const run = () => {
    if (options.temporaryUsers !== false) {
      context.temporaryUsers.removeExpired().then(
        (removed) => {
          if (removed > 0) log.info({ removed }, 'removed expired temporary users');
        },
        (error: unknown) => log.error({ err: error }, 'temporary-user cleanup failed'),
      );
    }
    purgeExpiredCredentials(context.database.db).then(
      (purged) => {
        if (Object.values(purged).some((count) => count > 0)) log.info(purged, 'purged expired sign-in records');
      },
      (error: unknown) => log.error({ err: error }, 'purging expired sign-in records failed'),
    );
    purgeStaleLiveRecords(context.database.db).then(
      (purged) => {
        if (Object.values(purged).some((count) => count > 0)) log.info(purged, 'purged stale live events');
      },
      (error: unknown) => log.error({ err: error }, 'purging stale live events failed'),
    );
    context.alerts.resumeStaleWebhooks().then(
      (resumed) => {
        if (resumed > 0) log.info({ resumed }, 'resumed alert webhooks left pending by a stopped process');
      },
      (error: unknown) => log.error({ err: error }, 'resuming alert webhooks failed'),
    );
    context.purger.sweepLocalCopies(context.database.db).then(
      (dropped) => {
        if (dropped > 0) log.info({ dropped }, 'dropped local copies of deleted objects');
      },
      (error: unknown) => log.error({ err: error }, 'sweeping local copies of deleted objects failed'),
    );
  };
  const first = setTimeout(run, Math.floor(Math.random() * 30_000));
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
