import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';

export interface PurgedCredentials {
  oauth_states: number;
  login_tickets: number;
  sessions: number;
  refresh_tokens: number;
}

/**
 * Deletes what can no longer sign anyone in: OAuth states and sign-in tickets past their expiry,
 * sessions that expired or were revoked, and those sessions' refresh tokens. A live session keeps
 * its spent refresh tokens, which reuse detection needs. Each deletion is one statement, so
 * replicas may run this at the same time.
 */
export async function purgeExpiredCredentials(db: Kysely<Tables>): Promise<PurgedCredentials> {
  const now = isoNow();
  const states = await db.deleteFrom('oauth_states').where('expires_at', '<=', now).executeTakeFirst();
  const tickets = await db.deleteFrom('login_tickets').where('expires_at', '<=', now).executeTakeFirst();
  const endedSessions = db
    .selectFrom('sessions')
    .select('id')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('revoked_at', 'is not', null)]));
  const tokens = await db.deleteFrom('refresh_tokens').where('session_id', 'in', endedSessions).executeTakeFirst();
  const sessions = await db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('revoked_at', 'is not', null)]))
    .executeTakeFirst();
  return {
    oauth_states: Number(states.numDeletedRows),
    login_tickets: Number(tickets.numDeletedRows),
    sessions: Number(sessions.numDeletedRows),
    refresh_tokens: Number(tokens.numDeletedRows),
  };
}
