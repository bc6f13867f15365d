import type { Kysely } from 'kysely';
import type { NewUserRow, Tables, UserRow } from '../db/tables.js';

/** What the policy needs of an account to judge what it may do. */
export type AccountState = Pick<UserRow, 'id' | 'role' | 'is_temporary' | 'disabled'>;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Every query on `users`. */
export class UsersRepository {
  constructor(private readonly db: Kysely<Tables>) {}

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByEmail(email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where('email_normalized', '=', normalizeEmail(email))
      .executeTakeFirst();
  }

  /** The accounts with these ids that exist, with what the policy needs of them. */
  async accountStates(ids: readonly string[]): Promise<AccountState[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('users')
      .select(['id', 'role', 'is_temporary', 'disabled'])
      .where('id', 'in', [...ids])
      .execute();
  }

  /** The accounts with one of these ids or (normalized) emails. */
  findByIdsOrEmails(ids: readonly string[], emailsNormalized: readonly string[]) {
    return this.db
      .selectFrom('users')
      .select(['id', 'email_normalized'])
      .where((eb) => eb.or([eb('id', 'in', [...ids]), eb('email_normalized', 'in', [...emailsNormalized])]))
      .execute();
  }

  /** The temporary users whose time is up, soonest expired first. */
  expiredTemporary(now: string, limit: number): Promise<Pick<UserRow, 'id' | 'email'>[]> {
    return this.db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('is_temporary', '=', 1)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }

  async insert(row: NewUserRow): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  /** Inserts unless the email is taken; answers whether the row was created. */
  async insertIfAbsent(row: NewUserRow): Promise<boolean> {
    const result = await this.db
      .insertInto('users')
      .values(row)
      .onConflict((oc) => oc.column('email_normalized').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async list(limit: number, skip: number): Promise<{ rows: UserRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('users')
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(skip)
        .execute(),
      this.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.total) };
  }

  async update(id: string, changes: Partial<Pick<UserRow, 'role' | 'disabled' | 'updated_at'>>): Promise<void> {
    await this.db.updateTable('users').set(changes).where('id', '=', id).execute();
  }

  /** Deletes a temporary user whose time is up; answers false when it is not (or is gone already). */
  async deleteIfExpiredTemporary(id: string, now: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('users')
      .where('id', '=', id)
      .where('is_temporary', '=', 1)
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  /**
   * PostgreSQL only: locks the active admins' rows until the transaction ends, in one order, so
   * changes that each check "another admin remains" run one after the other.
   */
  async lockActiveAdmins(): Promise<void> {
    await this.db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'admin')
      .where('disabled', '=', 0)
      .orderBy('id')
      .forUpdate()
      .execute();
  }

  async countActiveAdmins(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('admins'))
      .where('role', '=', 'admin')
      .where('disabled', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.admins);
  }
}
