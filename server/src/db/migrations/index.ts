import type { Migration, MigrationProvider } from 'kysely';
import * as accounts from './0001_accounts.js';
import * as access from './0002_access.js';
import * as deltaCommits from './0003_delta_commits.js';
import * as projects from './0004_projects.js';
import * as deltaSources from './0005_delta_sources.js';
import * as jobs from './0006_jobs.js';
import * as dashboards from './0007_dashboards.js';
import * as queue from './0008_queue.js';
import * as dropQueueProbe from './0009_drop_queue_probe.js';
import * as locationsDeclaredBy from './0010_locations_declared_by.js';
import * as embedTokens from './0011_embed_tokens.js';
import * as dashboardRevision from './0012_dashboard_revision.js';
import * as workerHeartbeats from './0013_worker_heartbeats.js';
import * as dashboardCopies from './0014_dashboard_copies.js';
import * as ingestionRunLeases from './0015_ingestion_run_leases.js';
import * as dashboardTabs from './0016_dashboard_tabs.js';
import * as dashboardColors from './0017_dashboard_colors.js';
import * as accessTokens from './0018_access_tokens.js';
import * as dashboardRevisions from './0019_dashboard_revisions.js';
import * as liveEvents from './0020_live_events.js';
import * as workflowSchedules from './0021_workflow_schedules.js';
import * as alerts from './0022_alerts.js';
import * as liveStreamLeases from './0023_live_stream_leases.js';
import * as generatedDashboards from './0024_generated_dashboards.js';

/** Every migration, in order. Bundled as modules so the built server needs no migrations folder. */
const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
  '0002_access': access,
  '0003_delta_commits': deltaCommits,
  '0004_projects': projects,
  '0005_delta_sources': deltaSources,
  '0006_jobs': jobs,
  '0007_dashboards': dashboards,
  '0008_queue': queue,
  '0009_drop_queue_probe': dropQueueProbe,
  '0010_locations_declared_by': locationsDeclaredBy,
  '0011_embed_tokens': embedTokens,
  '0012_dashboard_revision': dashboardRevision,
  '0013_worker_heartbeats': workerHeartbeats,
  '0014_dashboard_copies': dashboardCopies,
  '0015_ingestion_run_leases': ingestionRunLeases,
  '0016_dashboard_tabs': dashboardTabs,
  '0017_dashboard_colors': dashboardColors,
  '0018_access_tokens': accessTokens,
  '0019_dashboard_revisions': dashboardRevisions,
  '0020_live_events': liveEvents,
  '0021_workflow_schedules': workflowSchedules,
  '0022_alerts': alerts,
  '0023_live_stream_leases': liveStreamLeases,
  '0024_generated_dashboards': generatedDashboards,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
