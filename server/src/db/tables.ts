import type { Generated, Insertable, Selectable } from 'kysely';
import type { AlertDeliveriesTable, AlertEvaluationsTable, AlertsTable, NotificationsTable } from './alert-tables.js';

export type { AlertDeliveriesTable, AlertEvaluationsTable, AlertsTable, NotificationsTable } from './alert-tables.js';

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

export interface ProjectsTable {
  id: string;
  name: string;
  description: string;
  is_public: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  role: 'owner' | 'editor' | 'viewer';
}

export interface DashboardsTable {
  id: string;
  project_id: string;
  title: string;
  description: string;
  is_public: number;
  /** JSON array of components (`DashboardComponent`). */
  components: string;
  /** JSON array of layout items (`LayoutItem`). */
  layout: string;
  /** JSON array of tabs (`DashboardTab`), ordered; `[]`: one implicit tab (migration 0016). */
  tabs: Generated<string>;
  /** JSON array of category values, the n-th taking the n-th series colour (migration 0017). */
  colors: Generated<string>;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** Bumped by every save of the content; the dashboard's ETag. */
  revision: Generated<number>;
  /** The dashboard this one was duplicated from, if any (the id may outlive it). */
  copy_of: string | null;
  /** 1: a copy made by someone who could not edit the project (migration 0014). */
  confined: Generated<number>;
  /** `<pipeline>: <title>` of the template dashboard that generated it; null: made by a person (migration 0024). */
  generated_from: Generated<string | null>;
  /** SHA-256 of the content the generator last wrote: differs from the content once a person edits it. */
  generated_fingerprint: Generated<string | null>;
  /** A newer generated content (JSON `GeneratedContent`) offered instead of overwriting a person's edits. */
  generated_offer: Generated<string | null>;
  generated_offer_at: Generated<string | null>;
  /** The template id the offer came from. */
  generated_offer_template: Generated<string | null>;
}

export interface DashboardMembersTable {
  dashboard_id: string;
  user_id: string;
  role: 'owner' | 'editor' | 'viewer';
}

export interface WorkflowsTable {
  id: string;
  project_id: string;
  name: string;
  /** JSON `{name, version?}` or null. */
  engine: string | null;
  /** JSON `{structure, locations, runs_regex?}` or null (uploads only). */
  data_location: string | null;
  /**
   * The user who declared or last changed `data_location` (null without one, or when unknown); no
   * foreign key, so a removed declarer stays recorded and their locations scan nothing.
   */
  locations_declared_by: string | null;
  /** JSON `{cron, timezone?}` or null (migration 0021). */
  schedule: string | null;
  /** JSON `{interval_seconds}` or null. */
  watch: string | null;
  /** The user who set the schedule or watch: its runs start as them, and only while they may edit the project. */
  schedule_set_by: string | null;
  /** When the schedule is next due; claimed by moving it forward (docs/data.md "Schedules and watched folders"). */
  schedule_next_at: string | null;
  watch_next_at: string | null;
  /** SHA-256 of the watched locations' listing (names, sizes, modification times) when last looked at. */
  watch_fingerprint: string | null;
  created_at: string;
  updated_at: string;
}

export interface RunConfigurationsTable {
  id: string;
  workflow_id: string;
  name: string;
  version: number;
  parameters: string;
  created_at: string;
}

export interface RunsTable {
  id: string;
  workflow_id: string;
  tag: string;
  location: string | null;
  status: 'registered' | 'ingested' | 'failed';
  run_configuration_id: string | null;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface FilesTable {
  id: string;
  run_id: string;
  path: string;
  size: number;
  sha256: string;
  modified_at: string;
  content_type: string;
  origin: 'upload' | 'scan';
  storage_key: string | null;
  source_path: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataCollectionsTable {
  id: string;
  workflow_id: string;
  tag: string;
  type: 'table' | 'multiqc' | 'image';
  pattern: string;
  format: 'csv' | 'tsv' | 'parquet' | 'json' | 'ndjson';
  read_options: string;
  keys: string | null;
  columns: string;
  created_at: string;
  updated_at: string;
}

export interface JoinsTable {
  id: string;
  project_id: string;
  name: string;
  left_data_collection_id: string;
  right_data_collection_id: string;
  on_columns: string;
  how: 'inner' | 'left' | 'right' | 'outer';
}

export interface DeltaCommitsTable {
  table_id: string;
  version: number;
  claimed_at: string;
}

export interface DeltaSourcesTable {
  data_collection_id: string;
  file_id: string;
  sha256: string;
}

export type JobStatus = 'pending' | 'running' | 'success' | 'failed' | 'cancelled';

export interface JobsTable {
  job_id: string;
  kind: string;
  status: JobStatus;
  step: string | null;
  detail: string | null;
  progress: number | null;
  /** JSON */
  result: string | null;
  /** JSON `{code, message}` */
  error: string | null;
  user_id: string | null;
  project_id: string | null;
  /** JSON */
  payload: string;
  attempts: number;
  max_attempts: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  cancel_requested: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface IngestionRunsTable {
  id: string;
  project_id: string;
  job_id: string | null;
  status: 'pending' | 'running' | 'success' | 'partial' | 'failed' | 'cancelled';
  trigger: 'browser' | 'api' | 'cli' | 'schedule' | 'watch';
  triggered_by: string | null;
  overwrite: number;
  /** JSON `[{name, status, started_at, finished_at, detail}]` */
  steps: string;
  /** JSON per-collection results */
  data_collections: string;
  error: string | null;
  /** JSON string[] */
  source_paths: string;
  host: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** A synchronous run's lease (its server renews it while it works); null for runs with a job. */
  lease_expires_at: string | null;
}

/** One row per worker pool, renewed every few seconds (jobs/worker-registry.ts). */
export interface WorkerHeartbeatsTable {
  worker_id: string;
  started_at: string;
  seen_at: string;
  concurrency: number;
  running: number;
}

/** Read-only links to one dashboard or component (migration 0011); only the secret's hash is kept. */
export interface EmbedTokensTable {
  id: string;
  dashboard_id: string;
  component_id: string | null;
  token_hash: string;
  /** JSON DashboardFilter[]. */
  filters: string;
  /** JSON AsOf, or null: the live tables. */
  as_of: string | null;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AccessTokensTable {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  scope: 'read' | 'write';
  /** JSON string[], or null: every project of its user. */
  project_ids: string | null;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  last_used_from: string | null;
}

export interface DashboardRevisionsTable {
  dashboard_id: string;
  revision: number;
  saved_at: string;
  saved_by: string | null;
  title: string;
  description: string;
  /** JSON, as the dashboards columns of the same names. */
  tabs: string;
  components: string;
  layout: string;
  colors: string;
  /** JSON RevisionSummary. */
  summary: string;
}

export interface LiveEventsTable {
  /** Numbered by the database (autoincrement, bigserial: a string from PostgreSQL). */
  event_id: Generated<number | string>;
  kind: 'version' | 'job' | 'notification';
  project_id: string | null;
  data_collection_id: string | null;
  user_id: string | null;
  /** JSON: the event's data as sent. */
  data: string;
  created_at: string;
}

/** One open event stream on some replica (migration 0023), counted for the per-user limit. */
export interface LiveStreamLeasesTable {
  lease_id: string;
  /** `user:<id>`, or `address:<ip>` for anonymous callers. */
  caller_key: string;
  replica_id: string;
  expires_at: string;
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
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  workflows: WorkflowsTable;
  run_configurations: RunConfigurationsTable;
  runs: RunsTable;
  files: FilesTable;
  data_collections: DataCollectionsTable;
  joins: JoinsTable;
  delta_commits: DeltaCommitsTable;
  delta_sources: DeltaSourcesTable;
  jobs: JobsTable;
  ingestion_runs: IngestionRunsTable;
  dashboards: DashboardsTable;
  dashboard_members: DashboardMembersTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  embed_tokens: EmbedTokensTable;
  access_tokens: AccessTokensTable;
  dashboard_revisions: DashboardRevisionsTable;
  live_events: LiveEventsTable;
  alerts: AlertsTable;
  alert_evaluations: AlertEvaluationsTable;
  notifications: NotificationsTable;
  alert_deliveries: AlertDeliveriesTable;
  live_stream_leases: LiveStreamLeasesTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUserRow = Insertable<UsersTable>;
