import type { AdminUser, CreateUserRequest, ListQuery, Role, UpdateUserRequest } from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import { hashPassword } from '../auth/passwords.js';
import type { Database } from '../db/database.js';
import type { UserRow } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import { presentAdminUser } from './presenters.js';
import { normalizeEmail, UsersRepository } from './repository.js';

export interface NewAccount {
  email: string;
  password: string | null;
  role: Role;
}

/** Accounts: creation, administration, and the bootstrap admin. Knows nothing of HTTP. */
export class UsersService {
  readonly repository: UsersRepository;

  constructor(private readonly database: Database) {
    this.repository = new UsersRepository(database.db);
  }

  /** Creates an account; `email_taken` when the email exists in any letter case. */
  async createAccount(account: NewAccount): Promise<UserRow> {
    const now = isoNow();
    const row = {
      id: uuidv7(),
      email: account.email.trim(),
      email_normalized: normalizeEmail(account.email),
      password_hash: account.password === null ? null : await hashPassword(account.password),
      role: account.role,
      is_temporary: 0,
      expires_at: null,
      disabled: 0,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.repository.insertIfAbsent(row))) {
      throw new DomainError('email_taken', 'an account with this email already exists');
    }
    return { ...row };
  }

  async create(request: CreateUserRequest): Promise<AdminUser> {
    return presentAdminUser(await this.createAccount(request));
  }

  async list(query: ListQuery) {
    const { rows, total } = await this.repository.list(query.limit, query.skip);
    return { items: rows.map(presentAdminUser), total, limit: query.limit, skip: query.skip };
  }

  async get(id: string): Promise<AdminUser> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('user');
    return presentAdminUser(row);
  }

  async update(id: string, changes: UpdateUserRequest): Promise<AdminUser> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('user');
    const losesAdmin =
      row.role === 'admin' && row.disabled === 0 && (changes.role === 'user' || changes.disabled === true);
    await this.database.db.transaction().execute(async (trx) => {
      const repository = new UsersRepository(trx);
      if (losesAdmin && (await repository.countActiveAdmins()) <= 1) {
        throw new DomainError('last_admin', 'this is the last active admin; make another admin first');
      }
      await repository.update(id, {
        ...(changes.role === undefined ? {} : { role: changes.role }),
        ...(changes.disabled === undefined ? {} : { disabled: changes.disabled ? 1 : 0 }),
        updated_at: isoNow(),
      });
      if (changes.disabled === true) {
        await trx
          .updateTable('sessions')
          .set({ revoked_at: isoNow(), revoked_reason: 'user_disabled' })
          .where('user_id', '=', id)
          .where('revoked_at', 'is', null)
          .execute();
      }
    });
    return this.get(id);
  }

  async delete(id: string): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      const repository = new UsersRepository(trx);
      const row = await repository.findById(id);
      if (!row) throw notFound('user');
      if (row.role === 'admin' && row.disabled === 0 && (await repository.countActiveAdmins()) <= 1) {
        throw new DomainError('last_admin', 'this is the last active admin; make another admin first');
      }
      // Sessions and refresh tokens go with the user (ON DELETE CASCADE), so its tokens stop at once.
      await repository.delete(id);
    });
  }

  /**
   * Creates the bootstrap admin once. An existing account with that email is left exactly as it
   * is: the operator's later changes (password, role) are never overwritten by the environment.
   */
  async ensureBootstrapAdmin(bootstrap: { email: string; password: string | null }): Promise<'created' | 'exists'> {
    if (await this.repository.findByEmail(bootstrap.email)) return 'exists';
    try {
      await this.createAccount({ email: bootstrap.email, password: bootstrap.password, role: 'admin' });
      return 'created';
    } catch (error) {
      // Another replica created it first.
      if (error instanceof DomainError && error.code === 'email_taken') return 'exists';
      throw error;
    }
  }
}
