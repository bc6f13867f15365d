import type { Project } from '@service/common';
import type { Actor } from '../policy/actor.js';
import { roleOn } from '../policy/policy.js';
import { presentMembers } from '../sharing/members.js';
import { asSharedResource, type ProjectRecord } from './repository.js';

export function presentProject(record: ProjectRecord, actor: Actor): Project {
  const role = roleOn(actor, asSharedResource(record));
  return {
    project_id: record.row.id,
    name: record.row.name,
    description: record.row.description,
    is_public: record.row.is_public === 1,
    permissions: presentMembers(record.members, role),
    my_role: role,
    created_by: record.row.created_by,
    created_at: record.row.created_at,
    updated_at: record.row.updated_at,
  };
}
