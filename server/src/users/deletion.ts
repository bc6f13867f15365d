import type { UserDeletionSummary } from '@service/common';
import type { Kysely, Transaction } from 'kysely';
import type { AuditLog } from '../audit/service.js';
import type { Database } from '../db/database.js';
import type { Tables } from '../db/tables.js';
import { DomainError, notFound } from '../errors.js';
import {
  deleteOwnedDashboards,
  deletionSummary,
  lockOwnerships,
  revokeEmbedTokens,
  solelyOwnedBy,
  transferOwned,
} from './owned.js';
import { UsersRepository } from './repository.js';
import type { UserChangeListener } from './service.js';

/**
 * Deletes projects inside the caller's transaction (their storage is the projects' business);
 * answers the work to do once that transaction has committed.
 */
export type ProjectsRemover = (trx: Transaction<Tables>, projectIds: string[]) => Promise<() => Promise<void>>;

/** What the admin chose for what the account owns alone. */
export interface DeletionChoice {
  /** The admin who becomes its owner; default: the acting admin. */
  transferTo?: string | undefined;
  deleteOwned: boolean;
}

/** Who asks: an admin through the API, or the operator through `service user delete` (no account). */
export interface DeletionActor {
  userId: string | null;
  via: 'admin' | 'cli';
}

/** What a deletion did, as the audit log records it. */
export interface DeletionOutcome extends UserDeletionSummary {
  owned: 'transferred' | 'deleted';
  transfer_to: string | null;
}

const badTarget = (message: string) =>
  new DomainError('validation_failed', `transfer_to: ${message}`, [{ path: 'querystring.transfer_to', message }]);

/**
 * Deleting an account without orphaning what it made: what it owns alone (projects, dashboards)
 * goes to an admin or is deleted, its embed tokens are revoked and its sessions end, all in one
 * transaction; every replica then forgets its cached sessions before the answer.
 */
export class AccountDeletion {
  constructor(
    private readonly database: Database,
    private readonly audit: AuditLog,
    private readonly sessionCache: UserChangeListener,
    private readonly removeProjects: ProjectsRemover,
  ) {}

  async summary(userId: string): Promise<UserDeletionSummary> {
    if (!(await new UsersRepository(this.database.db).findById(userId))) throw notFound('user');
    return deletionSummary(this.database.db, userId);
  }

  async delete(userId: string, choice: DeletionChoice, actor: DeletionActor): Promise<DeletionOutcome> {
    let afterCommit: (() => Promise<void>) | undefined;
    const outcome = await this.database.db.transaction().execute(async (trx) => {
      const repository = new UsersRepository(trx);
      // Deletions, demotions and the transfer target's own changes take turns (PostgreSQL; SQLite
      // has one writer at a time anyway), so none of them can leave no admin or a gone owner.
      if (this.database.dialect === 'postgres') await repository.lockActiveAdmins();
      const row = await repository.findById(userId);
      if (!row) throw notFound('user');
      if (row.role === 'admin' && row.disabled === 0 && (await repository.countActiveAdmins()) <= 1) {
        throw new DomainError('last_admin', 'this is the last active admin; make another admin first');
      }
      if (userId === actor.userId) {
        throw new DomainError('self_deletion', 'you cannot delete your own account; another admin can');
      }
      const target = choice.deleteOwned ? null : await this.target(trx, choice.transferTo ?? actor.userId, userId);
      if (this.database.dialect === 'postgres') await lockOwnerships(trx, userId);
      const owned = await solelyOwnedBy(trx, userId);
      const counts = await deletionSummary(trx, userId, owned);
      await revokeEmbedTokens(trx, userId);
      if (target !== null) await transferOwned(trx, owned, userId, target);
      else {
        await deleteOwnedDashboards(trx, owned);
        afterCommit = await this.removeProjects(trx, owned.projectIds);
      }
      // Sessions and refresh tokens go with the row (ON DELETE CASCADE).
      if (!(await repository.delete(userId))) throw notFound('user');
      const result: DeletionOutcome = {
        owned: target === null ? 'deleted' : 'transferred',
        transfer_to: target,
        ...counts,
      };
      await this.audit.record(
        {
          type: 'user.deleted',
          actorUserId: actor.userId,
          subjectUserId: userId,
          subjectEmail: row.email,
          details: { via: actor.via, ...result },
        },
        trx,
      );
      return result;
    });
    // Every replica drops the user's cached sessions before this answers (the existing revocation path).
    await this.sessionCache.forgetUser(userId);
    await afterCommit?.();
    return outcome;
  }

  /** The admin who takes over: an active, permanent admin other than the account that goes. */
  private async target(db: Kysely<Tables>, transferTo: string | null, userId: string): Promise<string> {
    if (transferTo === null) throw badTarget('name the admin who takes over, or delete what the account owns');
    if (transferTo === userId) throw badTarget('cannot be the account being deleted');
    const row = await new UsersRepository(db).findById(transferTo);
    if (!row) throw badTarget(`no account ${JSON.stringify(transferTo)}`);
    if (row.role !== 'admin' || row.disabled === 1 || row.is_temporary === 1) {
      throw badTarget(`${row.email} is not an active admin`);
    }
    return row.id;
  }
}
