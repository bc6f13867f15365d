import type { Project } from '@service/common';
import type { Actor } from '../policy/actor.js';
import { roleOn } from '../policy/policy.js';
import { asSharedResource, type ProjectRecord } from './repository.js';

export function presentProject(record: ProjectRecord, actor: Actor): Project {
  const members = (role: 'owner' | 'editor' | 'viewer') =>
    record.members.filter((m) => m.role === role).map((m) => ({ user_id: m.user_id, email: m.email }));
  return {
    project_id: record.row.id,
    name: record.row.name,
    description: record.row.description,
    is_public: record.row.is_public === 1,
    permissions: { owners: members('owner'), editors: members('editor'), viewers: members('viewer') },
    // Only ever called for projects the actor can read, so a role exists.
    my_role: roleOn(actor, asSharedResource(record)) ?? 'public',
    created_by: record.row.created_by,
    created_at: record.row.created_at,
    updated_at: record.row.updated_at,
  };
}
