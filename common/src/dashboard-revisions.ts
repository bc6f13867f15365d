import { z } from 'zod';
import type { DashboardTab } from './dashboard-tabs.js';
import { type DashboardComponent, dashboardSchema, type LayoutItem } from './dashboards.js';
import { listAnswerSchema, listQuerySchema } from './pagination.js';

/**
 * Dashboard history (docs/dashboards.md "History"): every save of a dashboard's content keeps a
 * revision — who saved it, when, and a summary of what changed from the revision before.
 */
export const revisionSummarySchema = z
  .object({
    /** The first revision of a dashboard (created, duplicated or imported). */
    created: z.boolean(),
    /** The revision this one restored, if it was a restore. */
    restored_from: z.number().int().nullable(),
    title_changed: z.boolean(),
    description_changed: z.boolean(),
    /** Component ids. */
    components_added: z.array(z.string()),
    components_removed: z.array(z.string()),
    components_changed: z.array(z.string()),
    layout_changed: z.boolean(),
    tabs_changed: z.boolean(),
    colors_changed: z.boolean(),
  })
  .meta({ id: 'DashboardRevisionSummary' });
export type RevisionSummary = z.infer<typeof revisionSummarySchema>;

/** A revision as `GET /dashboards/{id}/revisions` lists it, newest first. */
export const dashboardRevisionSchema = z
  .object({
    revision: z.number().int(),
    saved_at: z.string(),
    /** The account that saved it; null once that account is gone. */
    saved_by: z.string().nullable(),
    saved_by_email: z.string().nullable(),
    summary: revisionSummarySchema,
  })
  .meta({ id: 'DashboardRevision' });
export type DashboardRevision = z.infer<typeof dashboardRevisionSchema>;
export const dashboardRevisionListSchema = listAnswerSchema(dashboardRevisionSchema).meta({
  id: 'DashboardRevisionList',
});
export type DashboardRevisionList = z.infer<typeof dashboardRevisionListSchema>;
export const dashboardRevisionListQuerySchema = listQuerySchema;

/** `GET /dashboards/{id}/revisions/{revision}`: the dashboard with its content as saved then. */
export const dashboardAtRevisionSchema = dashboardSchema
  .extend({ revision: dashboardRevisionSchema })
  .meta({ id: 'DashboardAtRevision' });
export type DashboardAtRevision = z.infer<typeof dashboardAtRevisionSchema>;

export const dashboardRevisionParamsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  revision: z.coerce.number().int().min(1),
});

/** What a revision keeps of a dashboard: its content, not its sharing. */
export interface RevisionContent {
  title: string;
  description: string;
  tabs: readonly DashboardTab[];
  components: readonly DashboardComponent[];
  layout: readonly LayoutItem[];
  colors: readonly string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What changed from `before` to `after` (null: nothing before, a new dashboard). The server
 * stores it with each revision; the web app uses it to compare any two revisions.
 */
export function summarizeChanges(
  before: RevisionContent | null,
  after: RevisionContent,
  restoredFrom: number | null = null,
): RevisionSummary {
  const previous = new Map((before?.components ?? []).map((component) => [component.component_id, component]));
  const next = new Map(after.components.map((component) => [component.component_id, component]));
  return {
    created: before === null,
    restored_from: restoredFrom,
    title_changed: before !== null && before.title !== after.title,
    description_changed: before !== null && before.description !== after.description,
    components_added: before === null ? [] : [...next.keys()].filter((id) => !previous.has(id)),
    components_removed: [...previous.keys()].filter((id) => !next.has(id)),
    components_changed: [...next.entries()]
      .filter(([id, component]) => previous.has(id) && !same(previous.get(id), component))
      .map(([id]) => id),
    layout_changed: before !== null && !same(before.layout, after.layout),
    tabs_changed: before !== null && !same(before.tabs, after.tabs),
    colors_changed: before !== null && !same(before.colors, after.colors),
  };
}

/** One line per kind of change, for a revision's row and a comparison of two revisions. */
export function describeChanges(summary: RevisionSummary): string[] {
  const lines: string[] = [];
  if (summary.created) lines.push('Created');
  if (summary.restored_from !== null) lines.push(`Restored revision ${summary.restored_from}`);
  if (summary.title_changed) lines.push('Title changed');
  if (summary.description_changed) lines.push('Description changed');
  const list = (ids: readonly string[]) => ids.join(', ');
  if (summary.components_added.length > 0) lines.push(`Added ${list(summary.components_added)}`);
  if (summary.components_removed.length > 0) lines.push(`Removed ${list(summary.components_removed)}`);
  if (summary.components_changed.length > 0) lines.push(`Changed ${list(summary.components_changed)}`);
  if (summary.layout_changed) lines.push('Layout changed');
  if (summary.tabs_changed) lines.push('Tabs changed');
  if (summary.colors_changed) lines.push('Colours changed');
  if (lines.length === 0) lines.push('No change to the content');
  return lines;
}
