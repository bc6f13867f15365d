import type { Kysely } from 'kysely';
import type { Tables, UserRow } from '../db/tables.js';
import { isoAfterSeconds, isoNow } from '../db/time.js';
import { DomainError } from '../errors.js';
import { hashSecret, randomSecret } from './secrets.js';

export type TicketPurpose = 'magic_link' | 'oauth';

/**
 * Single-use sign-in tickets (magic links, the OAuth hand-off). Only their hash is stored;
 * spending one is a single conditional update, so of any number of racing redemptions exactly
 * one succeeds.
 */
export class LoginTickets {
  constructor(private readonly db: Kysely<Tables>) {}

  async issue(
    user: UserRow,
    purpose: TicketPurpose,
    nextPath: string,
    ttlSeconds: number,
  ): Promise<{ ticket: string; expiresAt: string }> {
    const ticket = randomSecret();
    let expiresAt = isoAfterSeconds(ttlSeconds);
    // A ticket never outlives a temporary user.
    if (user.expires_at !== null && user.expires_at < expiresAt) expiresAt = user.expires_at;
    await this.db
      .insertInto('login_tickets')
      .values({
        ticket_hash: hashSecret(ticket),
        user_id: user.id,
        purpose,
        next_path: nextPath,
        created_at: isoNow(),
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
    return { ticket, expiresAt };
  }

  /** Spends a ticket and answers whose it was; `token_invalid` when unknown, spent or expired. */
  async redeem(ticket: string): Promise<{ userId: string; purpose: TicketPurpose; nextPath: string }> {
    const ticketHash = hashSecret(ticket);
    const now = isoNow();
    const spent = await this.db
      .updateTable('login_tickets')
      .set({ used_at: now })
      .where('ticket_hash', '=', ticketHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) {
      throw new DomainError('token_invalid', 'this sign-in link is invalid, expired or already used');
    }
    const row = await this.db
      .selectFrom('login_tickets')
      .select(['user_id', 'purpose', 'next_path'])
      .where('ticket_hash', '=', ticketHash)
      .executeTakeFirstOrThrow();
    return { userId: row.user_id, purpose: row.purpose as TicketPurpose, nextPath: row.next_path };
  }
}

/** Deletes the tickets past their expiry, spent or not; answers how many. */
export async function deleteExpiredLoginTickets(db: Kysely<Tables>, now: string): Promise<number> {
  const result = await db.deleteFrom('login_tickets').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
