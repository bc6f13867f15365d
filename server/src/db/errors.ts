/** A unique constraint refused a write (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Socket-level failures of a database connection (refused, reset, timed out). */
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
/** What node-postgres says when the server went away mid-session or could not be reached in time. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
];

/**
 * The database cannot be reached right now (restart, failover, network): the request is answered
 * 503 with Retry-After rather than 500, and nothing was changed (a transaction that lost its
 * connection is rolled back by the server). PostgreSQL's class 08 (connection exception) and
 * 57P01-57P03 (the server shutting down or starting) are such errors; so is SQLite's lock wait
 * running out.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_ERRNOS.has(code) || code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code)) return true;
    if (code === 'SQLITE_BUSY') return true;
  }
  const message = error instanceof Error ? error.message : '';
  if (CONNECTION_MESSAGES.some((known) => message.includes(known))) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isDatabaseUnavailable(cause);
}
