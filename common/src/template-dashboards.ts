import { z } from 'zod';
import { revisionSummarySchema } from './dashboard-revisions.js';
import { dashboardTabsSchema } from './dashboard-tabs.js';
import { dashboardComponentSchema, dashboardYamlSchema, layoutItemSchema } from './dashboards.js';

/**
 * A template's dashboards applied to a project (docs/templates.md "Re-running"): made the first
 * time; on a later run an unedited generated dashboard takes the new content (a new revision),
 * and one a person edited since it was generated is never overwritten: the new generated version
 * is kept beside it as an **offer** its editors may look at, apply or dismiss.
 */

/** `PUT /projects/{id}/template-dashboards`: the dashboards a template rendered for a folder. */
export const templateDashboardsRequestSchema = z
  .strictObject({
    template_id: z.string().min(1).max(200),
    /** Each as a dashboard.yaml, collections by tag or id; components the project cannot answer are left out. */
    dashboards: z.array(dashboardYamlSchema).min(1).max(20),
  })
  .meta({ id: 'TemplateDashboardsRequest' });
export type TemplateDashboardsRequest = z.infer<typeof templateDashboardsRequestSchema>;

/**
 * What became of one dashboard: `created`; `updated` (unedited since generated: a new revision);
 * `unchanged` (the generated content is what it already holds); `offered` (edited by a person
 * since generated: the new generated version waits beside it).
 */
export const generatedOutcomeSchema = z.enum(['created', 'updated', 'unchanged', 'offered']);
export type GeneratedOutcome = z.infer<typeof generatedOutcomeSchema>;

export const templateDashboardsAnswerSchema = z
  .object({
    items: z.array(z.object({ dashboard_id: z.string(), title: z.string(), outcome: generatedOutcomeSchema })),
    /** Components the project could not answer (a column or plot its data lacks), left out. */
    left_out: z.array(z.string()),
  })
  .meta({ id: 'TemplateDashboards' });
export type TemplateDashboards = z.infer<typeof templateDashboardsAnswerSchema>;

/** The content a generator writes (and offers): a dashboard's, without its sharing or palette. */
export const generatedContentSchema = z.object({
  title: z.string(),
  description: z.string(),
  tabs: dashboardTabsSchema,
  components: z.array(dashboardComponentSchema),
  layout: z.array(layoutItemSchema),
});
export type GeneratedContent = z.infer<typeof generatedContentSchema>;

/** `GET /dashboards/{id}/generated`: whether a template made it, and the version it offers. */
export const generatedVersionSchema = z
  .object({
    dashboard_id: z.string(),
    /** `<pipeline>: <title>` of the template dashboard it was generated from; null: made by a person. */
    generated_from: z.string().nullable(),
    /** Changed by a person since it was last generated (a later run then offers instead of replacing). */
    edited: z.boolean(),
    offer: generatedContentSchema
      .extend({
        template_id: z.string(),
        offered_at: z.string(),
        /** What applying it would change, from the dashboard as it is now. */
        changes: revisionSummarySchema,
      })
      .nullable(),
  })
  .meta({ id: 'GeneratedVersion' });
export type GeneratedVersion = z.infer<typeof generatedVersionSchema>;

/** The pipeline of a template id (`nf-core/ampliseq/2.16.0` → `nf-core/ampliseq`): versions share dashboards. */
export const templatePipelineOf = (templateId: string): string =>
  templateId.includes('/') ? templateId.slice(0, templateId.lastIndexOf('/')) : templateId;

/** What finds a generated dashboard again on a later run: its pipeline and its generated title. */
export const generatedKey = (templateId: string, title: string): string =>
  `${templatePipelineOf(templateId)}: ${title}`;

/** JSON with every object's keys sorted: the same content always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * What a run does with a dashboard generated before (`fingerprints` of contents, compared):
 * `generated` is what the last run wrote, `current` what the dashboard holds now, `offered` the
 * waiting offer's, `next` this run's. Pure, so the rule is stated once.
 */
export function generatedOutcome(fingerprints: {
  generated: string | null;
  current: string;
  offered: string | null;
  next: string;
}): { outcome: Exclude<GeneratedOutcome, 'created'>; write: 'content' | 'offer' | 'none' } {
  const { generated, current, offered, next } = fingerprints;
  if (next === current) return { outcome: 'unchanged', write: 'none' };
  // Unedited: what the last run wrote is still what it holds (a dashboard of no record counts as edited).
  if (generated !== null && generated === current) return { outcome: 'updated', write: 'content' };
  return { outcome: 'offered', write: next === offered ? 'none' : 'offer' };
}
