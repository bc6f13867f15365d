import { join } from 'node:path';
import { AuditLog } from './audit/service.js';
import { AccessTokens } from './auth/access-tokens.js';
import { LoginTickets } from './auth/login-tickets.js';
import { OAuthSignIn } from './auth/oauth.js';
import { PersonalTokens } from './auth/personal-tokens.js';
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
import { TabWarmer } from './dashboards/data/tab-warmer.js';
import { TreeFiles } from './dashboards/data/tree-files.js';
import { DashboardHistory } from './dashboards/history.js';
import { DashboardsService } from './dashboards/service.js';
import { DashboardFiles } from './dashboards/yaml-files.js';
import { DataCollectionQueries } from './datacollections/queries.js';
import { DataCollectionsService } from './datacollections/service.js';
import type { Database } from './db/database.js';
import { ProjectDefinitions } from './definitions/service.js';
import { type UpsertRequest, UpsertService } from './deltatables/upsert.js';
import { createDeltaEngine, DeltaTable, KyselyCommitClaims } from './engine/delta/index.js';
import { DuckDB } from './engine/duckdb.js';
import { LocalFileCache } from './engine/file-cache.js';
import { NativeCopies } from './engine/native-copies.js';
import { SnapshotCache } from './engine/snapshot-cache.js';
import { EmbedTokens } from './export/embed-tokens.js';
import { ExportService } from './export/service.js';
import { FilePreviews } from './files/preview.js';
import { FilesService } from './files/service.js';
import { API_PREFIX } from './http/prefix.js';
import { ImagesService } from './images/service.js';
import { ImageStore } from './images/store.js';
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
import { dashboardRows } from './tables/dashboards.js';
import { AccountDeletion } from './users/deletion.js';
import { UsersService } from './users/service.js';
import { DataLocationGuard } from './workflows/location-guard.js';
import { WorkflowsService } from './workflows/service.js';

/*
 * The builders `createContext` (context.ts) wires the application with, one per part of the house,
 * in the order they depend on each other: auth, the engine, projects and their data, jobs and
 * ingestion, dashboards. Each returns the services it made, named as the context names them.
 */

/** Local copies of remote Parquet files for DuckDB, which cannot read `s3://` here. */
const CACHE_MAX_BYTES = 2 * 1024 ** 3;

/**
 * Other replicas hear of sign-outs and user changes through PostgreSQL; processes sharing one
 * SQLite file see each other's commits through SQLite's data_version (no channel then).
 */
export async function openInvalidations(config: Config, database: Database): Promise<InvalidationChannel | null> {
  if (config.database.kind !== 'postgres' || config.auth.sessionCacheMs <= 0) return null;
  return PostgresInvalidationChannel.open(config.database.url, database.db, config.auth.sessionCacheMs);
}

/** Tokens, sessions and users, with the bootstrap admin (and the single-user admin) created. */
export async function wireAuth(config: Config, database: Database, invalidations: InvalidationChannel | null) {
  const key = await loadSigningKey(database, config.auth.jwtPrivateKey);
  const apiUrl = `${config.publicUrl}${API_PREFIX}`;
  const tokens = new AccessTokens(key, config.publicUrl, apiUrl, config.auth.accessTokenTtlSeconds);
  const audit = new AuditLog(database.db);
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
            redirectUri: `${apiUrl}/auth/oauth/callback`,
            registrationDisabled: config.auth.registrationDisabled,
            bootstrapAdminEmail: config.auth.bootstrapAdmin?.email ?? null,
          },
          users,
          tickets,
          audit,
        );
  const provisioning = new Provisioning(users, sessions, audit);
  return { audit, tokens, sessionCache, users, singleUserId, sessions, tickets, oauth, provisioning };
}

export function openDuckdb(config: Config): Promise<DuckDB> {
  return DuckDB.open({
    tempDirectory: join(config.dataDir, 'tmp', 'duckdb'),
    ...(config.duckdb.memoryLimitBytes === null ? {} : { memoryLimit: `${config.duckdb.memoryLimitBytes}B` }),
  });
}

/** Storage, the Delta engine over DuckDB, the caches of table versions and the storage purger. */
export async function wireEngine(config: Config, database: Database, duckdb: DuckDB, cacheDirectory: string) {
  const storage = openStorage(config);
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
  const claims = KyselyCommitClaims.over(database.db);
  const purger = new StoragePurger(storage, delta.files, claims);
  const tableOf = (dataCollectionId: string) =>
    new DeltaTable(delta, claims, dataCollectionId, tableRoot(dataCollectionId));
  const vacuum = new StorageVacuum(
    database.db,
    purger,
    tableOf,
    config.vacuum.retentionHours,
    workFilePlaces(config.dataDir),
  );
  const snapshots = new SnapshotCache(storage);
  return { storage, duckdb, copies, delta, snapshots, purger, tableOf, vacuum };
}

type Auth = Awaited<ReturnType<typeof wireAuth>>;
type Engine = Awaited<ReturnType<typeof wireEngine>>;

/**
 * Projects, their workflows, collections and files, and what goes with a user: a deleted
 * account's projects, a temporary user's projects (unless someone else co-owns them; their
 * storage once the user's removal has committed).
 */
export function wireProjects(config: Config, database: Database, auth: Auth, engine: Engine) {
  const { audit, sessionCache, sessions } = auth;
  const { purger } = engine;
  const projects = new ProjectsService(database, purger, audit);
  const locationGuard = new DataLocationGuard(database, config.ingestion.userLocations);
  const workflows = new WorkflowsService(database, config, projects, purger, locationGuard);
  const dataCollections = new DataCollectionsService(database, workflows, purger, audit);
  const accountDeletion = new AccountDeletion(database, audit, sessionCache, async (trx, projectIds) => {
    const owned = await projects.deleteMany(trx, projectIds);
    return () => purger.purge(owned);
  });
  const temporaryUsers = new TemporaryUsers(database.db, sessions, audit, config.auth.temporaryUserExpiryHours);
  temporaryUsers.ownedDataCleaners.push(async (trx, userId) => {
    const owned = await projects.deleteSolelyOwnedBy(trx, userId);
    return () => purger.purge(owned);
  });
  const { allowedRoots } = config.ingestion;
  const files = new FilesService(database, config, engine.storage, workflows, dataCollections);
  return {
    projects,
    personalTokens: new PersonalTokens(database, audit, (actor, projectId) =>
      projects.access(actor, projectId, 'resource.read'),
    ),
    locationGuard,
    workflows,
    dataCollections,
    accountDeletion,
    temporaryUsers,
    files,
    definitions: new ProjectDefinitions(database, allowedRoots, projects, workflows, dataCollections),
    joins: new JoinsService(database, projects),
    filePreviews: new FilePreviews({
      files,
      projects,
      duckdb: engine.duckdb,
      objectFiles: engine.delta.files,
      allowedRoots,
      tempDirectory: join(config.dataDir, 'tmp'),
      maxBytes: config.uploadMaxBytes,
    }),
  };
}

type Projects = ReturnType<typeof wireProjects>;

/** The job queue, what workers run for each kind of job, upserts and ingestion. */
export function wireJobs(config: Config, database: Database, owned: Projects, engine: Engine) {
  const jobs = new JobQueue(database, config.jobs.leaseSeconds);
  const images = new ImageStore(engine.storage);
  const upserts = new UpsertService(database, config, owned.dataCollections, engine.delta, engine.tableOf, images);
  const ingestion = new IngestionService(database, config, owned.projects, upserts, jobs, owned.locationGuard);
  const jobHandlers = new JobHandlers()
    .register('deltatable.upsert', (job, tools) => upserts.runQueued(job.payload as UpsertRequest, tools))
    .register('project.ingest', (job, tools) => ingestion.execute((job.payload as { run_id: string }).run_id, tools));
  return { jobs, upserts, ingestion, jobHandlers, workers: new WorkerRegistry(database.db) };
}

/** Queries over collections' tables, dashboards, their data, colours, answers cache and exports. */
export function wireDashboards(config: Config, database: Database, audit: AuditLog, owned: Projects, engine: Engine) {
  const { dataCollections, projects, temporaryUsers } = owned;
  const { duckdb, delta, tableOf, snapshots } = engine;
  const queries = new DataCollectionQueries({
    dataCollections,
    duckdb,
    storage: delta.storage,
    tempDirectory: delta.tempDirectory,
    tableOf,
    snapshots,
    copies: engine.copies,
    exactQuantileRows: config.dashboards.exactQuantileRows,
    exactBoxValues: config.dashboards.exactBoxValues,
  });
  const { allowedRoots } = config.ingestion;
  const reports = new MultiqcReports({ duckdb, files: delta.files, lookup: reportFilesIn(database.db), allowedRoots });
  const multiqc = new MultiqcService({ dataCollections, queries, reports });
  const trees = new TreeFiles({ collections: dataCollections, files: delta.files, allowedRoots });
  const dashboards = new DashboardsService(
    database,
    projects,
    queries,
    audit,
    multiqc,
    trees,
    config.dashboards.revisionsKept,
  );
  // A temporary user's dashboards go too (the copies a demo visitor made), unless someone co-owns one.
  temporaryUsers.ownedDataCleaners.push(async (trx, userId) => {
    await dashboardRows.deleteSolelyOwnedBy(trx, userId);
    return undefined;
  });
  const { requestWork, dashboardAnswers, tabWarmer, dashboardData } = wireDashboardData(config, database, engine, {
    dashboards,
    queries,
    multiqc,
    trees,
  });
  const dashboardColors = new DashboardColors(dashboards, dashboardData);
  const apiUrl = `${config.publicUrl}${API_PREFIX}`;
  const embedTokens = new EmbedTokens(database, { dashboards, dashboardData }, audit, apiUrl);
  const { frameAncestors } = config.export;
  const history = new DashboardHistory(database, dashboards);
  const store = new ImageStore(engine.storage);
  const images = new ImagesService({
    database,
    dashboards,
    dataCollections,
    tokens: embedTokens,
    store,
    files: delta.files,
    allowedRoots,
  });
  return {
    images,
    queries,
    multiqc,
    dashboards,
    dashboardData,
    dashboardColors,
    requestWork,
    dashboardAnswers,
    tabWarmer,
    embedTokens,
    dashboardFiles: new DashboardFiles(dashboards, projects, history),
    dashboardHistory: history,
    exports: new ExportService(dashboards, dashboardData, dashboardColors, embedTokens, frameAncestors, store),
  };
}

/**
 * Dashboards' data: the answer cache, the data service, the admission of data requests and the
 * tabs computed ahead in the idle time it sees.
 */
function wireDashboardData(
  config: Config,
  database: Database,
  engine: Engine,
  services: {
    dashboards: DashboardsService;
    queries: DataCollectionQueries;
    multiqc: MultiqcService;
    trees: TreeFiles;
  },
) {
  const { dashboards, queries, multiqc, trees } = services;
  const { duckdb, delta, tableOf, snapshots } = engine;
  const requestWork = new RequestWork(database, config.dataLimits);
  const dashboardAnswers = new AnswerCache();
  const tabWarmer = new TabWarmer(requestWork, config.dashboards.warmTabs, (error) =>
    process.stderr.write(`a dashboard's tabs were not computed ahead (${String(error)})\n`),
  );
  const dashboardData = new DashboardDataService(dashboards, queries, {
    database,
    duckdb,
    tableOf,
    snapshots,
    storage: delta.storage,
    answers: dashboardAnswers,
    multiqc,
    trees,
    limits: config.dataLimits,
    warmer: tabWarmer,
  });
  return { requestWork, dashboardAnswers, tabWarmer, dashboardData };
}
