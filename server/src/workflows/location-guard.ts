import type { DataLocation } from '@service/common';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';
import { DomainError } from '../errors.js';
import type { UserActor } from '../policy/actor.js';
import {
  authorizeLocationDeclaration,
  authorizeLocationReach,
  authorizeLocationScan,
  type ClaimedLocation,
  type LocationAtPath,
} from '../policy/locations.js';
import { asSharedResource } from '../sharing/members.js';
import { projectMemberRows } from '../tables/projects.js';
import { workflowRows } from '../tables/workflows.js';
import { UsersRepository } from '../users/repository.js';

/** The locations of a data location, each with its field path. */
export function locationsAt(dataLocation: DataLocation | null | undefined, pathPrefix: string): LocationAtPath[] {
  return (dataLocation?.locations ?? []).map((location, index) => ({
    path: `${pathPrefix}.locations[${index}]`,
    location,
  }));
}

/** Whether a stored data location (JSON text) already says what `next` says. */
export function sameDataLocation(stored: string | null, next: DataLocation | null | undefined): boolean {
  return stored === (next ? JSON.stringify(next) : null);
}

/**
 * Gathers what the location rules need (policy/locations.ts) from the database: which projects
 * already read which folders, and who can edit them. Used where a location is declared and
 * before every scan.
 */
export class DataLocationGuard {
  constructor(
    private readonly database: Database,
    private readonly userLocations: boolean,
  ) {}

  /** A new or changed location of `projectId` (undefined: a project not created yet). */
  async authorizeDeclared(
    actor: UserActor,
    projectId: string | undefined,
    declared: readonly LocationAtPath[],
    db: Kysely<Tables> = this.database.db,
  ): Promise<void> {
    if (declared.length === 0) return;
    authorizeLocationDeclaration(actor, this.userLocations);
    authorizeLocationReach(actor, declared, await this.claimedElsewhere(projectId, db));
  }

  /**
   * Before a scan of a workflow's locations: as the user who started it and as the one who declared
   * them, both as they are now (policy/locations.ts, authorizeLocationScan).
   */
  async authorizeScan(
    triggeredBy: string | null,
    declaredBy: string | null,
    projectId: string,
    locations: readonly LocationAtPath[],
  ): Promise<void> {
    const ids = [triggeredBy, declaredBy].filter((id): id is string => id !== null);
    const users = await new UsersRepository(this.database.db).accountStates(ids);
    const actorOf = (id: string | null): UserActor | null => {
      const user = users.find((row) => row.id === id);
      // A disabled account is as good as removed: it may not have anything scanned.
      if (!user || user.disabled === 1) return null;
      return { kind: 'user', userId: user.id, role: user.role, isTemporary: user.is_temporary === 1, sessionId: null };
    };
    try {
      authorizeLocationScan(
        { triggeredBy: actorOf(triggeredBy), declaredBy: actorOf(declaredBy) },
        this.userLocations,
        locations,
        await this.claimedElsewhere(projectId, this.database.db),
      );
    } catch (error) {
      // A scan reports one line per step: name the refused locations in it.
      if (!(error instanceof DomainError) || !error.errors) throw error;
      throw new DomainError(error.code, error.errors.map((problem) => problem.message).join('; '));
    }
  }

  /** Every location of every other project, with that project's members. */
  private async claimedElsewhere(projectId: string | undefined, db: Kysely<Tables>): Promise<ClaimedLocation[]> {
    const rows = await workflowRows.locatedOutside(db, projectId);
    if (rows.length === 0) return [];
    const members = await projectMemberRows.ofProjects(db, [...new Set(rows.map((row) => row.project_id))]);
    return rows.flatMap((row) => {
      const project = asSharedResource(
        members.filter((member) => member.project_id === row.project_id),
        row.is_public === 1,
        row.project_id,
      );
      const { locations } = JSON.parse(row.data_location as string) as DataLocation;
      return locations.map((location) => ({ location, project }));
    });
  }
}
