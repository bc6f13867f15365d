import type { FastifyBaseLogger } from 'fastify';
import type { TemporaryUsers } from '../auth/temporary-users.js';

const EVERY_MS = 5 * 60_000;

/**
 * Removes expired temporary users every few minutes. Every replica runs it; the removal itself is
 * safe to run concurrently, and a random offset keeps replicas from all waking at once.
 */
export function startPeriodicCleanup(temporaryUsers: TemporaryUsers, log: FastifyBaseLogger): () => void {
  const run = () => {
    temporaryUsers.removeExpired().then(
      (removed) => {
        if (removed > 0) log.info({ removed }, 'removed expired temporary users');
      },
      (error: unknown) => log.error({ err: error }, 'temporary-user cleanup failed'),
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
