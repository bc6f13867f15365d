import type { Generated, Insertable, Selectable } from 'kysely';

/**
 * Column conventions that hold on both dialects: ids are UUIDv7 text, times are ISO-8601 UTC
 * text (which sorts chronologically), flags are integers 0/1, JSON is text.
 */
export interface UsersTable {
  id: string;
  email: string;
  /** Lower-cased email; unique, so emails are unique case-insensitively. */
  email_normalized: string;
  password_hash: string | null;
  role: 'admin' | 'user';
  is_temporary: number;
  expires_at: string | null;
  disabled: number;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
}

export interface RefreshTokensTable {
  /** SHA-256 of the token; the token itself is never stored. */
  token_hash: string;
  session_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SigningKeysTable {
  /** Fixed slot name (`current`): exactly one replica wins the race to create it. */
  slot: string;
  kid: string;
  private_key_pem: string;
  created_at: string;
}

export interface RateLimitCountersTable {
  key: string;
  window_started_ms: number;
  hits: Generated<number>;
}

export interface LoginTicketsTable {
  ticket_hash: string;
  user_id: string;
  /** `magic_link` or `oauth` (the hand-off after identity-provider sign-in). */
  purpose: string;
  next_path: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface OAuthStatesTable {
  state_hash: string;
  code_verifier: string;
  nonce: string;
  next_path: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface AuditEventsTable {
  id: string;
  at: string;
  type: string;
  actor_user_id: string | null;
  subject_user_id: string | null;
  subject_email: string | null;
  client_address: string | null;
  /** JSON object; never holds a secret. */
  details: string;
}

export interface Tables {
  users: UsersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  signing_keys: SigningKeysTable;
  rate_limit_counters: RateLimitCountersTable;
  login_tickets: LoginTicketsTable;
  oauth_states: OAuthStatesTable;
  audit_events: AuditEventsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
