import type { AdminUser, CreateUserRequest, ListQuery, Role, UpdateUserRequest } from '@service/common';
import { v7 as uuidv7 } from 'uuid';
import type { AuditLog } from '../audit/service.js';
import type { Database } from '../db/database.js';
import type { UserRow } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import { sessionRows } from '../tables/sessions.js';
import { hashPassword } from './passwords.js';
import { presentAdminUser } from './presenters.js';
import { normalizeEmail, UsersRepository } from './repository.js';

export interface NewAccount {
  email: string;
  password: string | null;
  role: Role;
}

/** How an account came to be, for the audit log. */
export interface Origin {
  via: 'registration' | 'admin' | 'bootstrap' | 'single_user' | 'provisioning' | 'oauth' | 'cli';
  actorUserId?: string;
}

/** The fixed account every request acts as in single-user mode. */
export const SINGLE_USER_EMAIL = 'single-user@localhost.invalid';

/** What keeps copies of a user's state (the session cache): told when the user changes or is deleted. */
export interface UserChangeListener {
  forgetUser(userId: string): Promise<void>;
}

/** Accounts: creation, administration, and the bootstrap admin. Knows nothing of HTTP. */
export class UsersService {
  readonly repository: UsersRepository;

  constructor(
    private readonly database: Database,
    private readonly audit: AuditLog,
    private readonly sessionCache: UserChangeListener,
  ) {
    this.repository = new UsersRepository(database.db);
  }

  /** Creates an account; `email_taken` when the email exists in any letter case. */
  async createAccount(account: NewAccount, origin: Origin): Promise<UserRow> {
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
    await this.audit.record({
      type: 'user.created',
      actorUserId: origin.actorUserId ?? null,
      subjectUserId: row.id,
      subjectEmail: row.email,
      details: { via: origin.via, role: row.role },
    });
    return { ...row };
  }

  async create(request: CreateUserRequest, actorUserId: string): Promise<AdminUser> {
    return presentAdminUser(await this.createAccount(request, { via: 'admin', actorUserId }));
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

  async update(id: string, changes: UpdateUserRequest, actorUserId: string): Promise<AdminUser> {
    const row = await this.repository.findById(id);
    if (!row) throw notFound('user');
    const losesAdmin =
      row.role === 'admin' && row.disabled === 0 && (changes.role === 'user' || changes.disabled === true);
    await this.database.db.transaction().execute(async (trx) => {
      const repository = new UsersRepository(trx);
      // Takes turns with deletions and other demotions (users/deletion.ts), so two cannot both pass.
      if (losesAdmin && this.database.dialect === 'postgres') await repository.lockActiveAdmins();
      if (losesAdmin && (await repository.countActiveAdmins()) <= 1) {
        throw new DomainError('last_admin', 'this is the last active admin; make another admin first');
      }
      await repository.update(id, {
        ...(changes.role === undefined ? {} : { role: changes.role }),
        ...(changes.disabled === undefined ? {} : { disabled: changes.disabled ? 1 : 0 }),
        updated_at: isoNow(),
      });
      const audited = { actorUserId, subjectUserId: id, subjectEmail: row.email };
      if (changes.role !== undefined && changes.role !== row.role) {
        await this.audit.record(
          { ...audited, type: 'user.role_changed', details: { from: row.role, to: changes.role } },
          trx,
        );
      }
      if (changes.disabled !== undefined && changes.disabled !== (row.disabled === 1)) {
        await this.audit.record({ ...audited, type: changes.disabled ? 'user.disabled' : 'user.enabled' }, trx);
      }
      if (changes.disabled === true) {
        await sessionRows.revokeOfUser(trx, id, 'user_disabled', isoNow());
      }
    });
    // A cached session carries the user's role and state: drop it everywhere.
    await this.sessionCache.forgetUser(id);
    return this.get(id);
  }

  /**
   * Creates the bootstrap admin once. An existing account with that email is left exactly as it
   * is: the operator's later changes (password, role) are never overwritten by the environment.
   */
  async ensureBootstrapAdmin(bootstrap: { email: string; password: string | null }): Promise<'created' | 'exists'> {
    if (await this.repository.findByEmail(bootstrap.email)) return 'exists';
    try {
      await this.createAccount(
        { email: bootstrap.email, password: bootstrap.password, role: 'admin' },
        { via: 'bootstrap' },
      );
      return 'created';
    } catch (error) {
      // Another replica created it first.
      if (error instanceof DomainError && error.code === 'email_taken') return 'exists';
      throw error;
    }
  }

  /** The single-user-mode admin: created on first start, found by its fixed email afterwards. */
  async ensureSingleUserAdmin(): Promise<string> {
    const existing = await this.repository.findByEmail(SINGLE_USER_EMAIL);
    if (existing) return existing.id;
    try {
      return (
        await this.createAccount({ email: SINGLE_USER_EMAIL, password: null, role: 'admin' }, { via: 'single_user' })
      ).id;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'email_taken')) throw error;
      const raced = await this.repository.findByEmail(SINGLE_USER_EMAIL);
      if (!raced) throw error;
      return raced.id;
    }
  }
}
