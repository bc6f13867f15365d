import type { SessionAnswer } from '@service/common';
import type { AuditLog } from '../audit/service.js';
import { DomainError } from '../errors.js';
import type { UsersService } from '../users/service.js';
import type { SessionService } from './session-service.js';

/**
 * Creates or gets an account for a trusted caller holding the provisioning key (the
 * `service ingest` flow) and signs it in. It never hands out an admin session: the key is meant
 * for onboarding users, and must not become a back door to the instance.
 */
export class Provisioning {
  constructor(
    private readonly users: UsersService,
    private readonly sessions: SessionService,
    private readonly audit: AuditLog,
  ) {}

  async provision(email: string, clientAddress: string): Promise<SessionAnswer & { created: boolean }> {
    let user = await this.users.repository.findByEmail(email);
    let created = false;
    if (!user) {
      try {
        user = await this.users.createAccount({ email, password: null, role: 'user' }, { via: 'provisioning' });
        created = true;
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'email_taken')) throw error;
        user = await this.users.repository.findByEmail(email);
      }
    }
    if (!user || user.disabled === 1 || user.is_temporary === 1 || user.role === 'admin') {
      await this.audit.record({
        type: 'provisioning.refused',
        subjectUserId: user?.id ?? null,
        subjectEmail: email,
        clientAddress,
        details: { reason: user?.role === 'admin' ? 'admin_account' : 'account_unusable' },
      });
      throw new DomainError('forbidden', 'this account cannot be provisioned');
    }
    const session = await this.sessions.start(user);
    await this.audit.record({
      type: 'provisioning.used',
      subjectUserId: user.id,
      subjectEmail: user.email,
      clientAddress,
      details: { created },
    });
    return { ...session, created };
  }
}
