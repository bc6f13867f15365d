import {
  type Dashboard,
  type DashboardComponent,
  type DashboardTab,
  type LayoutItem,
  storedTabs,
} from '@service/common';
import type { Actor } from '../policy/actor.js';
import { roleOn, type SharedResource } from '../policy/policy.js';
import { presentMembers } from '../sharing/members.js';
import type { DashboardRecord } from './repository.js';

/** A dashboard with how the policy sees it and its project. */
export interface Access {
  record: DashboardRecord;
  /** The dashboard as the policy sees it, its project's members included. */
  resource: SharedResource;
  /** Its project, as the policy sees it. */
  project: SharedResource;
}

/** A dashboard as the caller sees it, with its ETag (the revision of its content). */
export interface Versioned {
  dashboard: Dashboard;
  etag: string;
}

export function componentsOf(record: DashboardRecord): DashboardComponent[] {
  return JSON.parse(record.row.components) as DashboardComponent[];
}

export function layoutOf(record: DashboardRecord): LayoutItem[] {
  return JSON.parse(record.row.layout) as LayoutItem[];
}

export function tabsOf(record: DashboardRecord): DashboardTab[] {
  return storedTabs(JSON.parse(record.row.tabs));
}

export function colorsOf(record: DashboardRecord): string[] {
  return JSON.parse(record.row.colors) as string[];
}

/** A dashboard as `actor`, who may read it, sees it. */
export function present({ record, resource, project }: Access, actor: Actor): Dashboard {
  // Only ever called for dashboards the actor can read, so a role exists.
  const role = roleOn(actor, resource);
  return {
    dashboard_id: record.row.id,
    project_id: record.row.project_id,
    title: record.row.title,
    description: record.row.description,
    is_public: record.row.is_public === 1,
    permissions: presentMembers(record.members, role),
    my_role: role,
    project_role: roleOn(actor, project),
    tabs: tabsOf(record),
    layout: layoutOf(record),
    components: componentsOf(record),
    colors: colorsOf(record),
    created_by: record.row.created_by,
    created_at: record.row.created_at,
    updated_at: record.row.updated_at,
  };
}
