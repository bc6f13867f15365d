import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { accessTokenRows } from '../tables/access-tokens.js';
import { oauthStateRows } from '../tables/oauth-states.js';
import { refreshTokenRows, sessionRows } from '../tables/sessions.js';
import { deleteExpiredLoginTickets } from './login-tickets.js';

export interface PurgedCredentials {
  oauth_states: number;
  login_tickets: number;
  sessions: number;
  refresh_tokens: number;
  access_tokens: number;
}

/**
 * Deletes what can no longer sign anyone in: OAuth states and sign-in tickets past their expiry,
 * sessions that expired or were revoked, those sessions' refresh tokens, and personal access tokens
 * past their expiry (docs/auth.md "Personal access tokens"). A live session keeps
 * its spent refresh tokens, which reuse detection needs. Each deletion is one statement, so
 * replicas may run this at the same time.
 */
export async function purgeExpiredCredentials(db: Kysely<Tables>): Promise<PurgedCredentials> {
  const now = isoNow();
  const states = await oauthStateRows.deleteExpired(db, now);
  const tickets = await deleteExpiredLoginTickets(db, now);
  // The tokens first, while their sessions still say which ended.
  const tokens = await refreshTokenRows.deleteOfEndedSessions(db, now);
  const sessions = await sessionRows.deleteEnded(db, now);
  const accessTokens = await accessTokenRows.deleteExpired(db, now);
  return {
    oauth_states: states,
    login_tickets: tickets,
    sessions,
    refresh_tokens: tokens,
    access_tokens: accessTokens,
  };
}
