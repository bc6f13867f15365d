import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AlertsService } from './alerts/service.js';
import { WebhookSender } from './alerts/webhooks.js';
import type { AuditLog } from './audit/service.js';
import type { AccessTokens } from './auth/access-tokens.js';
import type { LoginTickets } from './auth/login-tickets.js';
import type { OAuthSignIn } from './auth/oauth.js';
import type { PersonalTokens } from './auth/personal-tokens.js';
import type { Provisioning } from './auth/provisioning.js';
import type { InvalidationChannel } from './auth/session-invalidations.js';
import type { SessionService } from './auth/session-service.js';
import type { TemporaryUsers } from './auth/temporary-users.js';
import type { Config } from './config/config.js';
import {
  openDuckdb,
  openInvalidations,
  wireAuth,
  wireDashboards,
  wireEngine,
  wireJobs,
  wireProjects,
} from './context-wiring.js';
import type { DashboardColors } from './dashboards/colors.js';
import type { AnswerCache } from './dashboards/data/cache.js';
import type { DashboardDataService } from './dashboards/data/service.js';
import type { TabWarmer } from './dashboards/data/tab-warmer.js';
import type { DashboardHistory } from './dashboards/history.js';
import type { DashboardsService } from './dashboards/service.js';
import type { DashboardFiles } from './dashboards/yaml-files.js';
import type { DataCollectionQueries } from './datacollections/queries.js';
import type { DataCollectionsService } from './datacollections/service.js';
import { type Database, openDatabase } from './db/database.js';
import { assertSchemaCurrent, migrateToLatest } from './db/migrate.js';
import type { ProjectDefinitions } from './definitions/service.js';
import type { UpsertService } from './deltatables/upsert.js';
import type { DeltaEngine, DeltaTable } from './engine/delta/index.js';
import type { DuckDB } from './engine/duckdb.js';
import type { NativeCopies } from './engine/native-copies.js';
import type { SnapshotCache } from './engine/snapshot-cache.js';
import type { EmbedTokens } from './export/embed-tokens.js';
import type { ExportService } from './export/service.js';
import type { FilePreviews } from './files/preview.js';
import type { FilesService } from './files/service.js';
import { Lifecycle } from './health/lifecycle.js';
import type { ImagesService } from './images/service.js';
import type { IngestionService } from './ingestion/service.js';
import type { JobHandlers } from './jobs/handlers.js';
import type { JobQueue } from './jobs/queue.js';
import type { WorkerRegistry } from './jobs/worker-registry.js';
import { LiveEvents } from './live/hub.js';
import { publishLiveEvents } from './live/publishers.js';
import type { StoragePurger } from './maintenance/owned-storage.js';
import type { StorageVacuum } from './maintenance/storage-vacuum.js';
import type { MultiqcService } from './multiqc/service.js';
import type { JoinsService } from './projects/joins.js';
import type { ProjectsService } from './projects/service.js';
import type { RequestWork } from './rate-limit/request-work.js';
import type { ObjectStorage } from './storage/storage.js';
import { TemplateCatalog } from './templates/catalog.js';
import { TemplateDashboardsService } from './templates/dashboards.js';
import { TemplateProjects } from './templates/projects.js';
import type { AccountDeletion } from './users/deletion.js';
import type { UsersRepository } from './users/repository.js';
import type { UsersService } from './users/service.js';
import type { WorkflowsService } from './workflows/service.js';

/** Everything a request handler may need, built once per process. */
export interface AppContext {
  config: Config;
  database: Database;
  audit: AuditLog;
  tokens: AccessTokens;
  sessions: SessionService;
  /** Personal access tokens: bearer tokens for pipelines and the CLI (docs/auth.md). */
  personalTokens: PersonalTokens;
  users: UsersService;
  /** Deleting an account: what it owns alone goes to an admin or is deleted, its access ends. */
  accountDeletion: AccountDeletion;
  tickets: LoginTickets;
  temporaryUsers: TemporaryUsers;
  provisioning: Provisioning;
  /** Present only when identity-provider sign-in is configured. */
  oauth: OAuthSignIn | null;
  /** Single-user mode: the one admin every request acts as. */
  singleUserId: string | null;
  projects: ProjectsService;
  workflows: WorkflowsService;
  dataCollections: DataCollectionsService;
  /** MultiQC collections: their reports' plots (`GET /datacollections/{id}/multiqc`, the multiqc component). */
  multiqc: MultiqcService;
  /** Image collections' images and thumbnails (the image routes, the image component). */
  images: ImagesService;
  definitions: ProjectDefinitions;
  storage: ObjectStorage;
  duckdb: DuckDB;
  /** DuckDB-native copies of large table versions, read in place of their Parquet files. */
  copies: NativeCopies;
  delta: DeltaEngine;
  /** Table versions already read, for the query path (checked against storage on every use). */
  snapshots: SnapshotCache;
  files: FilesService;
  /** First rows of a registered file, with its detected dialect and types (Add data). */
  filePreviews: FilePreviews;
  upserts: UpsertService;
  joins: JoinsService;
  jobs: JobQueue;
  /** What workers run for each kind of job. */
  jobHandlers: JobHandlers;
  /** Which worker pools are alive, in any process (`/health`). */
  workers: WorkerRegistry;
  /** Whether this process is shutting down (`/health` readiness, refused requests). */
  lifecycle: Lifecycle;
  ingestion: IngestionService;
  dashboards: DashboardsService;
  /** Dashboards as YAML files (export, import). */
  dashboardFiles: DashboardFiles;
  /** Dashboard revisions: list, read, restore (docs/dashboards.md "History"). */
  dashboardHistory: DashboardHistory;
  /** Admits and bounds data and export work: rates, running requests, time limits, shutdown. */
  requestWork: RequestWork;
  /** Dashboard components' data (`POST /dashboards/{id}/data`). */
  dashboardData: DashboardDataService;
  /** Each dashboard's palette, one colour per value (`GET /dashboards/{id}/colors`, exports). */
  dashboardColors: DashboardColors;
  /** Dashboard components' answers, keyed by table versions (hits and misses on /metrics). */
  dashboardAnswers: AnswerCache;
  /** Computes a dashboard's other tabs ahead, in idle time, once one is opened unfiltered. */
  tabWarmer: TabWarmer;
  /** Read-only links to a dashboard or component, for other websites. */
  embedTokens: EmbedTokens;
  /** One component as an ECharts spec or a self-contained page. */
  exports: ExportService;
  /** Read-only queries over data collections' tables (collection routes and dashboards). */
  queries: DataCollectionQueries;
  /** The pipeline templates shipped in `templates/` (`GET /templates`, docs/templates.md). */
  templates: TemplateCatalog;
  /** New table versions and job changes, for the live stream (`GET /events`, docs/live-data.md). */
  live: LiveEvents;
  /** Alerts on dashboard cards, judged after each new table version, and their notifications. */
  alerts: AlertsService;
  /** Projects made of a folder on the server with a template (`POST /projects/from-template`). */
  templateProjects: TemplateProjects;
  /** A template's dashboards in a project: made, updated, or offered beside a person's edits. */
  templateDashboards: TemplateDashboardsService;
  /** Deletes the storage of deleted rows. */
  purger: StoragePurger;
  vacuum: StorageVacuum;
  /** The Delta table holding a data collection's rows. */
  tableOf(dataCollectionId: string): DeltaTable;
  /** Releases the database, DuckDB and the local file cache. */
  close(): Promise<void>;
}

/** Alerts (docs/live-data.md "Alerts"): webhooks wait 1 s, 2 s, then 4 s between their tries. */
function wireAlerts(
  config: Config,
  database: Database,
  users: Pick<UsersRepository, 'findById'>,
  dashboards: Pick<AppContext, 'dashboards' | 'dashboardData'>,
  live: LiveEvents,
): AlertsService {
  const allowedHosts = config.alerts.webhookAllowedHosts;
  return new AlertsService({
    database,
    dashboards: dashboards.dashboards,
    dashboardData: dashboards.dashboardData,
    users,
    webhooks: new WebhookSender(database, { allowedHosts, retryBaseMs: 1000 }),
    allowedHosts,
    publish: (event) => live.publish(event),
    warn: (error, alertId) => process.stderr.write(`alert ${alertId} not evaluated (${String(error)})\n`),
  });
}

/**
 * Opens the database, brings its schema up to date, loads the signing key and creates the
 * bootstrap admin (and the single-user admin). Each step is safe to run on several replicas at once.
 * The services are wired part by part, in the order they depend on each other (context-wiring.ts).
 */
export async function createContext(config: Config): Promise<AppContext> {
  const database = openDatabase(config.database);
  let duckdb: DuckDB | undefined;
  let invalidations: InvalidationChannel | null = null;
  let live: LiveEvents | null = null;
  const cacheDirectory = join(config.dataDir, 'cache', randomUUID());
  try {
    if (config.autoMigrate) await migrateToLatest(database);
    else await assertSchemaCurrent(database);
    invalidations = await openInvalidations(config, database);
    const auth = await wireAuth(config, database, invalidations);
    const openedDuckdb = await openDuckdb(config);
    duckdb = openedDuckdb;
    const engine = await wireEngine(config, database, openedDuckdb, cacheDirectory);
    const owned = wireProjects(config, database, auth, engine);
    const work = wireJobs(config, database, owned, engine);
    // Runs left active by jobs that ended before jobs ended their runs would block their project,
    // and so would synchronous runs of a server that died (their lease expired).
    await work.ingestion.endOrphanedRuns();
    await work.ingestion.endExpiredRuns();
    const dashboards = wireDashboards(config, database, auth.audit, owned, engine);
    const postgresUrl = config.database.kind === 'postgres' ? config.database.url : null;
    const openedLive = await LiveEvents.open(database, postgresUrl);
    live = openedLive;
    publishLiveEvents(openedLive, { database, upserts: work.upserts, jobs: work.jobs });
    const alerts = wireAlerts(config, database, auth.users.repository, dashboards, openedLive);
    work.upserts.onVersion((collection, version) => alerts.versionCommitted(collection.id, version));
    // The parts' services, without the collaborators only the wiring hands around.
    const { sessionCache: _sessionCache, ...authServices } = auth;
    const { locationGuard: _locationGuard, ...projectServices } = owned;
    const { copies } = engine;
    const templates = new TemplateCatalog();
    const templateDashboards = new TemplateDashboardsService({
      database,
      dashboards: dashboards.dashboards,
      files: dashboards.dashboardFiles,
      projects: owned.projects,
    });
    const templateProjects = new TemplateProjects({
      catalog: templates,
      definitions: owned.definitions,
      templateDashboards,
      ingestion: work.ingestion,
      projects: owned.projects,
      locations: owned.locationGuard,
      allowedRoots: config.ingestion.allowedRoots,
      jobsEnabled: config.jobs.enabled,
    });
    return {
      config,
      database,
      ...authServices,
      ...engine,
      ...projectServices,
      ...work,
      ...dashboards,
      live: openedLive,
      alerts,
      lifecycle: new Lifecycle(),
      templates,
      templateProjects,
      templateDashboards,
      async close() {
        await dashboards.tabWarmer.close();
        await openedLive.close();
        await invalidations?.close();
        await copies.close();
        openedDuckdb.close();
        await rm(cacheDirectory, { recursive: true, force: true });
        await database.close();
      },
    };
  } catch (error) {
    await live?.close();
    await invalidations?.close();
    duckdb?.close();
    await database.close();
    throw error;
  }
}
