import type { AdminUser, User } from '@service/common';
import type { UserRow } from '../db/tables.js';

export function presentUser(row: UserRow): User {
  return {
    user_id: row.id,
    email: row.email,
    role: row.role,
    is_temporary: row.is_temporary === 1,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
}

export function presentAdminUser(row: UserRow): AdminUser {
  return { ...presentUser(row), disabled: row.disabled === 1, updated_at: row.updated_at };
}
