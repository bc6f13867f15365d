import type {
  DashboardAtRevision,
  DashboardRevision,
  DashboardRevisionList,
  RevisionSummary,
  UpdateDashboardRequest,
} from '@service/common';
import type { Database } from '../db/database.js';
import { paginate } from '../db/paginate.js';
import type { DashboardRevisionsTable } from '../db/tables.js';
import { notFound } from '../errors.js';
import type { Actor } from '../policy/actor.js';
import { dashboardRevisionRows } from '../tables/dashboard-revisions.js';
import { type Access, present, type Versioned } from './presenter.js';
import { contentOf } from './revision-records.js';
import type { DashboardsService } from './service.js';

type StoredRevision = DashboardRevisionsTable & { saved_by_email: string | null };

function presentRevision(row: StoredRevision): DashboardRevision {
  return {
    revision: row.revision,
    saved_at: row.saved_at,
    saved_by: row.saved_by,
    saved_by_email: row.saved_by_email,
    summary: JSON.parse(row.summary) as RevisionSummary,
  };
}

/**
 * A dashboard's history (docs/dashboards.md "History"): its revisions for those who may edit it —
 * listed, each shown as saved then, and restored as a new save (history is never rewritten).
 * Viewers see the dashboard as it is published now, not what its editors since removed.
 */
export class DashboardHistory {
  constructor(
    private readonly database: Pick<Database, 'db'>,
    private readonly dashboards: Pick<DashboardsService, 'access' | 'update'>,
  ) {}

  async list(actor: Actor, dashboardId: string, page: { limit: number; skip: number }): Promise<DashboardRevisionList> {
    await this.dashboards.access(actor, dashboardId, 'resource.edit');
    return paginate(
      dashboardRevisionRows.withSaver(this.database.db, dashboardId),
      (rows) =>
        rows
          .selectAll('dashboard_revisions')
          .select('users.email as saved_by_email')
          .orderBy('dashboard_revisions.revision', 'desc'),
      page,
      presentRevision,
    );
  }

  /** The dashboard with its content as saved at `revision` (its sharing as it is now). */
  async atRevision(actor: Actor, dashboardId: string, revision: number): Promise<Access & { stored: StoredRevision }> {
    const access = await this.dashboards.access(actor, dashboardId, 'resource.edit');
    const stored = await dashboardRevisionRows.find(this.database.db, dashboardId, revision);
    if (!stored) throw notFound('revision');
    const { title, description, tabs, components, layout, colors, saved_at } = stored;
    const row = { ...access.record.row, title, description, tabs, components, layout, colors, updated_at: saved_at };
    return { ...access, record: { ...access.record, row }, stored };
  }

  async get(actor: Actor, dashboardId: string, revision: number): Promise<DashboardAtRevision> {
    const { stored, ...access } = await this.atRevision(actor, dashboardId, revision);
    return { ...present(access, actor), revision: presentRevision(stored) };
  }

  /** Saves the revision's content as the dashboard's newest revision (editors), checked as any save. */
  async restore(actor: Actor, dashboardId: string, revision: number): Promise<Versioned> {
    const { stored } = await this.atRevision(actor, dashboardId, revision);
    const content = contentOf(stored);
    const request = { ...content, colors: [...content.colors] } as UpdateDashboardRequest;
    return this.dashboards.update(actor, dashboardId, request, undefined, revision);
  }
}
