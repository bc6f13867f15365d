import { z } from 'zod';
import { cardDataFields } from './card-fields.js';
import { componentIdSchema } from './dashboard-components.js';
import { asOfParamSchema, asOfSchema, dashboardFiltersParamSchema, dashboardFiltersSchema } from './dashboard-data.js';
import { listAnswerSchema, listQuerySchema } from './pagination.js';
import { queryRowSchema, sortParamSchema, tableColumnSchema } from './queries.js';
import { shownColumnsParamSchema, tableColumnFiltersParamSchema } from './table-filters.js';

/**
 * Export and embedding (docs/architecture.md "Export", docs/export.md): one dashboard component
 * served to another website as a chart specification (`format=spec`) or a self-contained page
 * (`format=html`), to readers, to anyone when the dashboard is public, or by an embed token.
 */

export const EXPORT_FORMATS = ['spec', 'html'] as const;
export const exportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof exportFormatSchema>;

export const exportThemeSchema = z.enum(['light', 'dark']);
export type ExportTheme = z.infer<typeof exportThemeSchema>;

/** Embed tokens live at most a year; a month unless asked otherwise. */
export const EMBED_TOKEN_DEFAULT_HOURS = 720;
export const EMBED_TOKEN_MAX_HOURS = 8760;

/** An embed token as presented: `emb_` then 43 base64url characters (256 random bits); anything else is 401 `token_invalid`. */
export const embedTokenSecretSchema = z.string().min(1).max(4096);

/**
 * `POST /dashboards/{id}/embed_tokens` (owners and editors). Without `component_id` the token opens
 * every component of the dashboard; with it, that one component only. `filters` are fixed: they
 * apply on top of whatever the embedding page passes, and a query-string filter naming the same
 * component never replaces or widens them (the token's value is kept, the caller's dropped).
 * `as_of` pins the table versions, so an embedded figure never changes.
 */
export const createEmbedTokenRequestSchema = z
  .strictObject({
    component_id: componentIdSchema.optional(),
    expires_in_hours: z.number().positive().max(EMBED_TOKEN_MAX_HOURS).default(EMBED_TOKEN_DEFAULT_HOURS),
    filters: dashboardFiltersSchema.optional(),
    as_of: asOfSchema.optional(),
  })
  .meta({ id: 'CreateEmbedTokenRequest' });
export type CreateEmbedTokenRequest = z.infer<typeof createEmbedTokenRequestSchema>;
export type CreateEmbedTokenRequestInput = z.input<typeof createEmbedTokenRequestSchema>;

/**
 * The answer to a create: the only time the secret is shown. `url` (`format=spec`) and `html_url`
 * (`format=html`, the iframe's `src`) are absolute and carry the token; for a dashboard-wide token
 * they are templates with a literal `{component_id}` in place of the component.
 */
export const createdEmbedTokenSchema = z
  .object({
    embed_token_id: z.string(),
    token: z.string(),
    url: z.string(),
    html_url: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'CreatedEmbedToken' });
export type CreatedEmbedToken = z.infer<typeof createdEmbedTokenSchema>;

/** A token as `GET /dashboards/{id}/embed_tokens` lists it (newest first); never the secret. */
export const embedTokenSchema = z
  .object({
    embed_token_id: z.string(),
    dashboard_id: z.string(),
    /** null: every component of the dashboard. */
    component_id: z.string().nullable(),
    filters: dashboardFiltersSchema,
    as_of: asOfSchema.nullable(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    /** The last time an export was served with it. */
    last_used_at: z.string().nullable(),
    revoked: z.boolean(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'EmbedToken' });
export type EmbedToken = z.infer<typeof embedTokenSchema>;
export const embedTokenListSchema = listAnswerSchema(embedTokenSchema).meta({ id: 'EmbedTokenList' });
export type EmbedTokenList = z.infer<typeof embedTokenListSchema>;

export const embedTokenListQuerySchema = listQuerySchema;

export const embedTokenParamsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  embed_token_id: z.string().min(1).max(64),
});

export const exportParamsSchema = z.strictObject({
  dashboard_id: z.string().min(1).max(64),
  component_id: componentIdSchema,
});

/** `GET /export/components/{dashboard_id}/{component_id}` query. */
export const exportQuerySchema = z.strictObject({
  format: exportFormatSchema.default('spec'),
  /** The dashboard's filters (JSON), as in `POST /dashboards/{id}/data`; an embed token's own come on top. */
  filters: dashboardFiltersParamSchema.optional(),
  /** Time travel as in the data route; an embed token's pinned `as_of` wins. */
  as_of: asOfParamSchema.optional(),
  token: embedTokenSecretSchema.optional(),
  theme: exportThemeSchema.default('light'),
  /**
   * A table as its reader has it (the address bar's `?tables=`, docs/dashboards.md "Tables"): its
   * header's filters (JSON), its order (`col:asc,…`) and the columns shown, in order (JSON).
   */
  column_filters: tableColumnFiltersParamSchema.optional(),
  sort: sortParamSchema.optional(),
  columns: shownColumnsParamSchema.optional(),
  /** The contig a coverage track of contigs draws, as its reader picked it (the address bar's `?contigs=`). */
  contig: z.string().trim().min(1).max(1000).optional(),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;
export type ExportQueryInput = z.input<typeof exportQuerySchema>;

/**
 * A card's export: its number, the same on the unfiltered table, what it counts (`mean of mass`),
 * and its comparison and sparkline when it has them.
 */
export const cardSpecSchema = z
  .object({ value: z.unknown(), unfiltered_value: z.unknown(), label: z.string(), ...cardDataFields })
  .meta({ id: 'CardSpec' });
export type CardSpec = z.infer<typeof cardSpecSchema>;

/** A table's export: its first page under the filters, in its order. */
export const tableSpecSchema = z
  .object({
    columns: z.array(tableColumnSchema),
    rows: z.array(queryRowSchema),
    /** The coloured columns' whole-table ranges (table-scales.ts). */
    color_ranges: z.record(z.string(), z.tuple([z.number(), z.number()])).optional(),
  })
  .meta({ id: 'TableSpec' });
export type TableSpec = z.infer<typeof tableSpecSchema>;

/** A figure's export: the complete ECharts option (`common/charts` chartOption), data in `dataset.source`. */
export const figureSpecSchema = z.record(z.string(), z.unknown()).meta({ id: 'FigureSpec' });

/**
 * `format=spec` answer. `spec` by `type`: figure → an ECharts option that renders as is with
 * `echarts.init(el).setOption(spec)`; card → CardSpec; table → TableSpec; multiqc → an ECharts option, or a
 * TableSpec for MultiQC's tables; image → a TableSpec of the gallery's first page (its `image_id`s name
 * the images of `GET /export/components/{dashboard_id}/{component_id}/images/{image_id}`). Text exports as HTML only.
 */
export const exportSpecSchema = z
  .object({
    dashboard_id: z.string(),
    component_id: z.string(),
    type: z.enum(['figure', 'card', 'table', 'multiqc', 'image']),
    title: z.string().nullable(),
    spec: z.union([cardSpecSchema, tableSpecSchema, figureSpecSchema]),
    /** The table version read per data collection (null: no table yet). */
    version: z.record(z.string(), z.number().int().nullable()),
  })
  .meta({ id: 'ExportSpec' });
export type ExportSpec = z.infer<typeof exportSpecSchema>;
