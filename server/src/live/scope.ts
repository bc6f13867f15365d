import { type DashboardComponent, jobKindSchema } from '@service/common';
import { projectJoins } from '../dashboards/data/joins.js';
import { componentsOf } from '../dashboards/presenter.js';
import type { DashboardsService } from '../dashboards/service.js';
import type { Database } from '../db/database.js';
import { DomainError } from '../errors.js';
import type { Actor } from '../policy/actor.js';
import { authorize, tokenProjects } from '../policy/policy.js';
import type { ProjectsService } from '../projects/service.js';
import type { LiveEventRow } from '../tables/live-events.js';

/** What one stream follows: a dashboard, a project, or (neither) the caller's jobs. */
export interface StreamTarget {
  dashboard_id?: string | undefined;
  project_id?: string | undefined;
}

/** Which events a stream may be sent, judged afresh whenever its caller's rights are checked again. */
export interface StreamScope {
  accepts(event: LiveEventRow): boolean;
}

export interface ScopeSources {
  dashboards: Pick<DashboardsService, 'access'>;
  projects: Pick<ProjectsService, 'access'>;
  database: Pick<Database, 'db'>;
}

/** The collections a dashboard's components read (a table, a figure, a card…). */
function collectionsRead(components: readonly DashboardComponent[]): Set<string> {
  return new Set(
    components.flatMap((component) => ('data_collection_id' in component ? [component.data_collection_id] : [])),
  );
}

/**
 * `read` and every collection joined to one of them, through the project's joins, however many
 * joins away: a reader's filter on a joined collection narrows the components reading `read`, so a
 * new version there changes what they show.
 */
function withJoined(read: Set<string>, joins: readonly { left: string; right: string }[]): Set<string> {
  const followed = new Set(read);
  let grew = true;
  while (grew) {
    grew = false;
    for (const { left, right } of joins) {
      if (followed.has(left) === followed.has(right)) continue;
      followed.add(followed.has(left) ? right : left);
      grew = true;
    }
  }
  return followed;
}

/**
 * A job event is sent to whom `GET /jobs/{id}` answers: its owner and admins, within an access
 * token's projects, and never for a kind outside the product (docs/live-data.md "Sessions and permissions").
 */
function seesJob(actor: Actor, event: LiveEventRow): boolean {
  if (actor.kind !== 'user') return false;
  const limit = tokenProjects(actor);
  if (limit !== null && (event.project_id === null || !limit.includes(event.project_id))) return false;
  if (!jobKindSchema.safeParse((JSON.parse(event.data) as { kind?: unknown }).kind).success) return false;
  return actor.role === 'admin' || (event.user_id !== null && event.user_id === actor.userId);
}

/**
 * A notification event goes to its own user's streams, whatever they follow, within an access
 * token's projects (docs/live-data.md "Alerts").
 */
function isOwnNotification(actor: Actor, event: LiveEventRow): boolean {
  if (event.kind !== 'notification' || actor.kind !== 'user' || event.user_id !== actor.userId) return false;
  const limit = tokenProjects(actor);
  return limit === null || (event.project_id !== null && limit.includes(event.project_id));
}

/**
 * The events `actor` may receive on a stream of `target`, with the same answers as the resource's
 * own routes when they may not (401, 404): a dashboard's stream carries the versions of the
 * collections its components read and of those joined to them; a project's the versions of its
 * collections and the caller's jobs in it; a stream of neither the caller's jobs (the Jobs page).
 */
export async function resolveScope(actor: Actor, target: StreamTarget, sources: ScopeSources): Promise<StreamScope> {
  if (target.dashboard_id !== undefined && target.project_id !== undefined)
    throw new DomainError('validation_failed', 'give dashboard_id or project_id, not both');
  if (target.dashboard_id !== undefined) {
    const { record } = await sources.dashboards.access(actor, target.dashboard_id, 'resource.read');
    const projectId = record.row.project_id;
    const read = withJoined(collectionsRead(componentsOf(record)), await projectJoins(sources.database.db, projectId));
    return {
      accepts: (event) =>
        isOwnNotification(actor, event) ||
        (event.kind === 'version' &&
          event.project_id === projectId &&
          event.data_collection_id !== null &&
          read.has(event.data_collection_id)),
    };
  }
  if (target.project_id !== undefined) {
    const project = await sources.projects.access(actor, target.project_id, 'resource.read');
    const projectId = project.row.id;
    return {
      accepts: (event) =>
        isOwnNotification(actor, event) ||
        (event.project_id === projectId && (event.kind === 'version' || seesJob(actor, event))),
    };
  }
  authorize(actor, 'session.read_own');
  return { accepts: (event) => isOwnNotification(actor, event) || (event.kind === 'job' && seesJob(actor, event)) };
}
