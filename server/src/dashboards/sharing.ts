import type { SharingRequest } from '@service/common';
import type { Kysely } from 'kysely';
import { type AuditLog, actorUserId, sharingDetails } from '../audit/service.js';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import type { Actor } from '../policy/actor.js';
import { authorizeSharing } from '../policy/policy.js';
import { resolveMembers } from '../sharing/members.js';
import { dashboardMemberRows, dashboardRows } from '../tables/dashboards.js';
import { type Access, present, type Versioned } from './presenter.js';
import { etagOf, type IfMatch, matchesRevision, preconditionFailed } from './revision.js';

export interface SharingDeps {
  dashboards: {
    access(actor: Actor, dashboardId: string, action: 'resource.share'): Promise<Access>;
    load(dashboardId: string): Promise<Access>;
  };
  db: Kysely<Tables>;
  audit: Pick<AuditLog, 'record'>;
}

/**
 * Replaces a dashboard's own member lists and its public switch (its owners; beyond the project's
 * readers, the project's sharers: policy `authorizeSharing`). With `If-Match`, only at that
 * revision; the change bumps the revision, since the ETag stands for the whole answer, members
 * included, and compares-and-sets it, so a save or share in between is never overwritten unseen.
 */
export async function setPermissions(
  { dashboards, db, audit }: SharingDeps,
  actor: Actor,
  dashboardId: string,
  request: SharingRequest,
  ifMatch?: IfMatch,
): Promise<Versioned> {
  const { record, resource, project } = await dashboards.access(actor, dashboardId, 'resource.share');
  const members = await resolveMembers(db, request);
  const had = new Map(record.members.map((member) => [member.user_id, member.role]));
  authorizeSharing(actor, {
    dashboard: resource,
    project,
    confined: record.row.confined === 1,
    granted: [...members].filter(([userId, role]) => had.get(userId) !== role).map(([userId]) => userId),
    makesPublic: request.is_public && record.row.is_public !== 1,
  });
  if (!matchesRevision(ifMatch, record.row.revision)) throw preconditionFailed();
  await db.transaction().execute(async (trx) => {
    const written = await dashboardRows.updateAtRevision(trx, dashboardId, record.row.revision, {
      is_public: request.is_public ? 1 : 0,
      updated_at: isoNow(),
      revision: record.row.revision + 1,
    });
    // Someone saved or shared in between: the checks above judged another dashboard.
    if (!written) throw preconditionFailed();
    const rows = [...members].map(([userId, role]) => ({ dashboard_id: dashboardId, user_id: userId, role }));
    await dashboardMemberRows.replace(trx, dashboardId, rows);
    const details = {
      dashboard_id: dashboardId,
      title: record.row.title,
      project_id: record.row.project_id,
      ...sharingDetails(members, request.is_public),
    };
    await audit.record({ type: 'dashboard.shared', actorUserId: actorUserId(actor), details }, trx);
  });
  // The sharing as written, even when it leaves the caller unable to read the dashboard again.
  const written = await dashboards.load(dashboardId);
  return { dashboard: present(written, actor), etag: etagOf(written.record.row.revision) };
}
