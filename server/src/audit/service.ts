import type { AuditEvent, AuditEventType } from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { paginate } from '../db/paginate.js';
import type { Tables } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import type { Actor } from '../policy/actor.js';

/** The user behind a change, for the log's "who" (null for an anonymous caller). */
export function actorUserId(actor: Actor): string | null {
  return actor.kind === 'user' ? actor.userId : null;
}

/** A sharing change as the log keeps it: the public switch and the user ids in each role. */
export function sharingDetails(members: ReadonlyMap<string, string>, isPublic: boolean): Record<string, unknown> {
  const byRole = (role: string) => [...members].filter(([, held]) => held === role).map(([userId]) => userId);
  return { is_public: isPublic, owners: byRole('owner'), editors: byRole('editor'), viewers: byRole('viewer') };
}

export interface AuditRecord {
  type: AuditEventType;
  actorUserId?: string | null;
  subjectUserId?: string | null;
  subjectEmail?: string | null;
  clientAddress?: string | null;
  /** Context for a person reading the log; callers never put secrets here. */
  details?: Record<string, unknown>;
}

/** The security audit log: append-only rows in the metadata database, readable by admins. */
export class AuditLog {
  constructor(private readonly db: Kysely<Tables>) {}

  /** Records an event; inside a transaction when given one, so it commits with the change it describes. */
  async record(event: AuditRecord, db: Kysely<Tables> = this.db): Promise<void> {
    await db
      .insertInto('audit_events')
      .values({
        id: uuidv7(),
        at: isoNow(),
        type: event.type,
        actor_user_id: event.actorUserId ?? null,
        subject_user_id: event.subjectUserId ?? null,
        subject_email: event.subjectEmail ?? null,
        client_address: event.clientAddress ?? null,
        details: JSON.stringify(event.details ?? {}),
      })
      .execute();
  }

  async list(query: { limit: number; skip: number; type?: AuditEventType | undefined }) {
    let select = this.db.selectFrom('audit_events');
    if (query.type !== undefined) select = select.where('type', '=', query.type);
    return paginate(
      select,
      (rows) => rows.selectAll().orderBy('at', 'desc').orderBy('id', 'desc'),
      query,
      (row): AuditEvent => ({
        event_id: row.id,
        at: row.at,
        type: row.type as AuditEventType,
        actor_user_id: row.actor_user_id,
        subject_user_id: row.subject_user_id,
        subject_email: row.subject_email,
        client_address: row.client_address,
        details: JSON.parse(row.details) as Record<string, unknown>,
      }),
    );
  }
}
