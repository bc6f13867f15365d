import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog } from './audit/service.js';
import { AccessTokens } from './auth/access-tokens.js';
import { LoginTickets } from './auth/login-tickets.js';
import { OAuthSignIn } from './auth/oauth.js';
import { Provisioning } from './auth/provisioning.js';
import { SessionCache } from './auth/session-cache.js';
import { type InvalidationChannel, PostgresInvalidationChannel } from './auth/session-invalidations.js';
import { SessionService } from './auth/session-service.js';
import { loadSigningKey } from './auth/signing-keys.js';
import { TemporaryUsers } from './auth/temporary-users.js';
import type { Config } from './config/config.js';
import { DashboardColors } from './dashboards/colors.js';
import { AnswerCache } from './dashboards/data/cache.js';
import { DashboardDataService } from './dashboards/data/service.js';
import { TreeFiles } from './dashboards/data/tree-files.js';
import { DashboardsRepository } from './dashboards/repository.js';
import { DashboardsService } from './dashboards/service.js';
import { DashboardFiles } from './dashboards/yaml-files.js';
import { DataCollectionQueries } from './datacollections/queries.js';
import { DataCollectionsService } from './datacollections/service.js';
import { type Database, openDatabase } from './db/database.js';
import { assertSchemaCurrent, migrateToLatest } from './db/migrate.js';
import { ProjectDefinitions } from './definitions/service.js';
import { type UpsertRequest, UpsertService } from './deltatables/upsert.js';
import { createDeltaEngine, type DeltaEngine, DeltaTable, KyselyCommitClaims } from './engine/delta/index.js';
import { DuckDB } from './engine/duckdb.js';
import { LocalFileCache } from './engine/file-cache.js';
import { NativeCopies } from './engine/native-copies.js';
import { SnapshotCache } from './engine/snapshot-cache.js';
import { EmbedTokens } from './export/embed-tokens.js';
import { ExportService } from './export/service.js';
import { FilePreviews } from './files/preview.js';
import { FilesService } from './files/service.js';
import { Lifecycle } from './health/lifecycle.js';
import { API_PREFIX } from './http/prefix.js';
import { IngestionService } from './ingestion/service.js';
import { JobHandlers } from './jobs/handlers.js';
import { JobQueue } from './jobs/queue.js';
import { WorkerRegistry } from './jobs/worker-registry.js';
import { StoragePurger } from './maintenance/owned-storage.js';
import { StorageVacuum, workFilePlaces } from './maintenance/storage-vacuum.js';
import { MultiqcReports, reportFilesIn } from './multiqc/reports.js';
import { MultiqcService } from './multiqc/service.js';
import { JoinsService } from './projects/joins.js';
import { ProjectsService } from './projects/service.js';
import { RequestWork } from './rate-limit/request-work.js';
import { openStorage } from './storage/index.js';
import { tableRoot } from './storage/layout.js';
import type { ObjectStorage } from './storage/storage.js';
import { AccountDeletion } from './users/deletion.js';
import { UsersService } from './users/service.js';
import { DataLocationGuard } from './workflows/location-guard.js';
import { WorkflowsService } from './workflows/service.js';

/** Everything a request handler may need, built once per process. */
export interface AppContext {
  config: Config;
  database: Database;
  audit: AuditLog;
  tokens: AccessTokens;
  sessions: SessionService;
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
  /** Admits and bounds data and export work: rates, running requests, time limits, shutdown. */
  requestWork: RequestWork;
  /** Dashboard components' data (`POST /dashboards/{id}/data`). */
  dashboardData: DashboardDataService;
  /** Each dashboard's palette, one colour per value (`GET /dashboards/{id}/colors`, exports). */
  dashboardColors: DashboardColors;
  /** Dashboard components' answers, keyed by table versions (hits and misses on /metrics). */
  dashboardAnswers: AnswerCache;
  /** Read-only links to a dashboard or component, for other websites. */
  embedTokens: EmbedTokens;
  /** One component as an ECharts spec or a self-contained page. */
  exports: ExportService;
  /** Read-only queries over data collections' tables (collection routes and dashboards). */
  queries: DataCollectionQueries;
  /** Deletes the storage of deleted rows. */
  purger: StoragePurger;
  vacuum: StorageVacuum;
  /** The Delta table holding a data collection's rows. */
  tableOf(dataCollectionId: string): DeltaTable;
  /** Releases the database, DuckDB and the local file cache. */
  close(): Promise<void>;
}

/** Local copies of remote Parquet files for DuckDB, which cannot read `s3://` here. */
const CACHE_MAX_BYTES = 2 * 1024 ** 3;

/**
 * Opens the database, brings its schema up to date, loads the signing key and creates the
 * bootstrap admin (and the single-user admin). Each step is safe to run on several replicas at once.
 */
export async function createContext(config: Config): Promise<AppContext> {
  const database = openDatabase(config.database);
  let duckdb: DuckDB | undefined;
  let invalidations: InvalidationChannel | null = null;
  const cacheDirectory = join(config.dataDir, 'cache', randomUUID());
  try {
    if (config.autoMigrate) await migrateToLatest(database);
    else await assertSchemaCurrent(database);
    const key = await loadSigningKey(database, config.auth.jwtPrivateKey);
    const tokens = new AccessTokens(
      key,
      config.publicUrl,
      `${config.publicUrl}${API_PREFIX}`,
      config.auth.accessTokenTtlSeconds,
    );
    const audit = new AuditLog(database.db);
    // Other replicas hear of sign-outs and user changes through PostgreSQL; processes sharing one
    // SQLite file see each other's commits through SQLite's data_version.
    if (config.database.kind === 'postgres' && config.auth.sessionCacheMs > 0) {
      invalidations = await PostgresInvalidationChannel.open(
        config.database.url,
        database.db,
        config.auth.sessionCacheMs,
      );
    }
    const sessionCache = new SessionCache(config.auth.sessionCacheMs, invalidations, database.changesByOthers);
    const users = new UsersService(database, audit, sessionCache);
    if (config.auth.bootstrapAdmin) await users.ensureBootstrapAdmin(config.auth.bootstrapAdmin);
    const singleUserId = config.auth.mode === 'single_user' ? await users.ensureSingleUserAdmin() : null;
    const sessions = new SessionService(database, tokens, config.auth.refreshTokenTtlSeconds, audit, sessionCache);
    const tickets = new LoginTickets(database.db);
    const oauth =
      config.auth.oauth === null
        ? null
        : new OAuthSignIn(
            database,
            {
              provider: config.auth.oauth,
              redirectUri: `${config.publicUrl}${API_PREFIX}/auth/oauth/callback`,
              registrationDisabled: config.auth.registrationDisabled,
              bootstrapAdminEmail: config.auth.bootstrapAdmin?.email ?? null,
            },
            users,
            tickets,
            audit,
          );
    const storage = openStorage(config);
    duckdb = await DuckDB.open({
      tempDirectory: join(config.dataDir, 'tmp', 'duckdb'),
      ...(config.duckdb.memoryLimitBytes === null ? {} : { memoryLimit: `${config.duckdb.memoryLimitBytes}B` }),
    });
    const copies = await NativeCopies.open(duckdb, {
      directory: join(config.dataDir, 'tmp', 'copies'),
      maxCopies: config.duckdb.copies,
      minRows: config.duckdb.copyMinRows,
    });
    const cache =
      storage.kind !== 'local'
        ? await LocalFileCache.open({ directory: cacheDirectory, maxBytes: CACHE_MAX_BYTES })
        : null;
    const delta = createDeltaEngine({ storage, duckdb, cache, tempDirectory: join(config.dataDir, 'tmp') });
    const snapshots = new SnapshotCache(storage);
    const claims = KyselyCommitClaims.over(database.db);
    const purger = new StoragePurger(storage, delta.files, claims);
    const projects = new ProjectsService(database, purger, audit);
    const locationGuard = new DataLocationGuard(database, config.ingestion.userLocations);
    const workflows = new WorkflowsService(database, config, projects, purger, locationGuard);
    const dataCollections = new DataCollectionsService(database, workflows, purger, audit);
    const accountDeletion = new AccountDeletion(database, audit, sessionCache, async (trx, projectIds) => {
      const owned = await projects.deleteMany(trx, projectIds);
      return () => purger.purge(owned);
    });
    const temporaryUsers = new TemporaryUsers(database.db, sessions, audit, config.auth.temporaryUserExpiryHours);
    // A temporary user's projects go with them, unless someone else co-owns them; their storage
    // once the user's removal has committed.
    temporaryUsers.ownedDataCleaners.push(async (trx, userId) => {
      const owned = await projects.deleteSolelyOwnedBy(trx, userId);
      return () => purger.purge(owned);
    });
    const openedDuckdb = duckdb;
    const jobs = new JobQueue(database, config.jobs.leaseSeconds);
    const upserts = new UpsertService(database, config, dataCollections, delta, (id) => tableOf(id));
    const ingestion = new IngestionService(database, config, projects, upserts, jobs, locationGuard);
    // Runs left active by jobs that ended before jobs ended their runs would block their project,
    // and so would synchronous runs of a server that died (their lease expired).
    await ingestion.endOrphanedRuns();
    await ingestion.endExpiredRuns();
    const jobHandlers = new JobHandlers()
      .register('deltatable.upsert', (job, tools) => upserts.runQueued(job.payload as UpsertRequest, tools))
      .register('project.ingest', (job, tools) => ingestion.execute((job.payload as { run_id: string }).run_id, tools));
    const tableOf = (dataCollectionId: string) =>
      new DeltaTable(delta, claims, dataCollectionId, tableRoot(dataCollectionId));
    const queries = new DataCollectionQueries({
      dataCollections,
      duckdb: openedDuckdb,
      storage: delta.storage,
      tempDirectory: delta.tempDirectory,
      tableOf,
      snapshots,
      copies,
      exactQuantileRows: config.dashboards.exactQuantileRows,
      exactBoxValues: config.dashboards.exactBoxValues,
    });
    const dashboardAnswers = new AnswerCache();
    const multiqc = new MultiqcService({
      dataCollections,
      queries,
      reports: new MultiqcReports({
        duckdb: openedDuckdb,
        files: delta.files,
        lookup: reportFilesIn(database.db),
        allowedRoots: config.ingestion.allowedRoots,
      }),
    });
    const trees = new TreeFiles({
      collections: dataCollections,
      files: delta.files,
      allowedRoots: config.ingestion.allowedRoots,
    });
    const dashboards = new DashboardsService(database, projects, queries, audit, multiqc, trees);
    // And the dashboards they own alone (the copies a demo visitor made), unless someone co-owns one.
    temporaryUsers.ownedDataCleaners.push(async (trx, userId) => {
      await DashboardsRepository.deleteSolelyOwnedBy(trx, userId);
      return undefined;
    });
    const dashboardData = new DashboardDataService(dashboards, queries, {
      database,
      duckdb: openedDuckdb,
      tableOf,
      snapshots,
      storage: delta.storage,
      answers: dashboardAnswers,
      multiqc,
      trees,
      limits: config.dataLimits,
    });
    const dashboardColors = new DashboardColors(dashboards, dashboardData);
    const files = new FilesService(database, config, storage, workflows, dataCollections);
    const embedTokens = new EmbedTokens(
      database,
      { dashboards, dashboardData },
      audit,
      `${config.publicUrl}${API_PREFIX}`,
    );
    return {
      config,
      database,
      audit,
      tokens,
      sessions,
      users,
      accountDeletion,
      tickets,
      temporaryUsers,
      provisioning: new Provisioning(users, sessions, audit),
      oauth,
      singleUserId,
      projects,
      workflows,
      dataCollections,
      multiqc,
      definitions: new ProjectDefinitions(
        database,
        config.ingestion.allowedRoots,
        projects,
        workflows,
        dataCollections,
      ),
      storage,
      duckdb: openedDuckdb,
      copies,
      delta,
      snapshots,
      files,
      filePreviews: new FilePreviews({
        files,
        projects,
        duckdb: openedDuckdb,
        objectFiles: delta.files,
        allowedRoots: config.ingestion.allowedRoots,
        tempDirectory: join(config.dataDir, 'tmp'),
        maxBytes: config.uploadMaxBytes,
      }),
      tableOf,
      purger,
      vacuum: new StorageVacuum(
        database.db,
        purger,
        tableOf,
        config.vacuum.retentionHours,
        workFilePlaces(config.dataDir),
      ),
      joins: new JoinsService(database, projects),
      upserts,
      jobs,
      jobHandlers,
      workers: new WorkerRegistry(database.db),
      lifecycle: new Lifecycle(),
      ingestion,
      dashboards,
      dashboardData,
      requestWork: new RequestWork(database, config.dataLimits),
      dashboardFiles: new DashboardFiles(dashboards, projects),
      dashboardAnswers,
      embedTokens,
      dashboardColors,
      exports: new ExportService(dashboards, dashboardData, dashboardColors, embedTokens, config.export.frameAncestors),
      queries,
      async close() {
        await invalidations?.close();
        await copies.close();
        openedDuckdb.close();
        await rm(cacheDirectory, { recursive: true, force: true });
        await database.close();
      },
    };
  } catch (error) {
    await invalidations?.close();
    duckdb?.close();
    await database.close();
    throw error;
  }
}
