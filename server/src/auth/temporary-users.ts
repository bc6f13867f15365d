import type { SessionAnswer } from '@service/common';
import type { Kysely, Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { AuditLog } from '../audit/service.js';
import type { Tables } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { normalizeEmail, UsersRepository } from '../users/repository.js';
import type { SessionService } from './session-service.js';

/**
 * Removes what a user owns before the user row goes; resources register one as they arrive. It
 * may answer work to do once the removal has committed (deleting storage), never before.
 */
export type OwnedDataCleaner = (trx: Transaction<Tables>, userId: string) => Promise<undefined | (() => Promise<void>)>;

const CLEANUP_BATCH = 100;

/**
 * Throwaway accounts of public and demo mode: created on request, signed in at once, and removed
 * with everything they own once they expire.
 */
export class TemporaryUsers {
  readonly ownedDataCleaners: OwnedDataCleaner[] = [];

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly sessions: SessionService,
    private readonly audit: AuditLog,
    private readonly lifetimeHours: number,
  ) {}

  async create(clientAddress: string): Promise<SessionAnswer> {
    const id = uuidv7();
    const now = isoNow();
    const email = `temporary-${id}@users.invalid`;
    const row = {
      id,
      email,
      email_normalized: normalizeEmail(email),
      password_hash: null,
      role: 'user' as const,
      is_temporary: 1,
      expires_at: isoAfterSeconds(this.lifetimeHours * 3600),
      disabled: 0,
      created_at: now,
      updated_at: now,
    };
    await new UsersRepository(this.db).insert(row);
    await this.audit.record({
      type: 'temporary_user.created',
      subjectUserId: id,
      subjectEmail: email,
      clientAddress,
      details: { expires_at: row.expires_at },
    });
    return this.sessions.start(row);
  }

  /**
   * Deletes expired temporary users, one transaction per user. Several replicas may run this at
   * once: each delete re-checks expiry, and a user another replica removed first is skipped.
   */
  async removeExpired(): Promise<number> {
    let removed = 0;
    for (;;) {
      const expired = await new UsersRepository(this.db).expiredTemporary(isoNow(), CLEANUP_BATCH);
      let removedInBatch = 0;
      for (const user of expired) {
        const afterCommit: (() => Promise<void>)[] = [];
        const deleted = await this.db.transaction().execute(async (trx) => {
          for (const clean of this.ownedDataCleaners) {
            const then = await clean(trx, user.id);
            if (then !== undefined) afterCommit.push(then);
          }
          if (!(await new UsersRepository(trx).deleteIfExpiredTemporary(user.id, isoNow()))) return false;
          await this.audit.record(
            { type: 'temporary_user.removed', subjectUserId: user.id, subjectEmail: user.email },
            trx,
          );
          return true;
        });
        // The transaction committed, whether or not this replica was the one to remove the user.
        for (const then of afterCommit) await then();
        if (deleted) removedInBatch++;
      }
      removed += removedInBatch;
      if (expired.length < CLEANUP_BATCH || removedInBatch === 0) return removed;
    }
  }
}
