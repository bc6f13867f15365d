import { z } from 'zod';
import {
  cardComponentSchema,
  componentIdSchema,
  componentTabSchema,
  componentTitleSchema,
  figureComponentSchema,
  interactiveComponentSchema,
  tabIdSchema,
} from './dashboard-components.js';
import { asOfParamSchema, asOfSchema, dashboardFiltersParamSchema, dashboardFiltersSchema } from './dashboard-data.js';
import { checkSectionWidths, type SectionComponent, sectionComponentSchema } from './dashboard-sections.js';
import { checkTabs, type DashboardTab, dashboardTabsSchema, tabOf } from './dashboard-tabs.js';
import { imageComponentSchema } from './images.js';
import { multiqcComponentSchema } from './multiqc.js';
import { listAnswerSchema, nameSearchSchema } from './pagination.js';
import { membersSchema, nameSchema, projectRoleSchema, sharingRequestSchema } from './projects.js';
import { columnNameSchema, sortKeySchema, sortParamSchema } from './queries.js';
import { shownColumnsParamSchema, tableColumnFiltersParamSchema } from './table-filters.js';
import { tableColorScaleSchema } from './table-scales.js';

/**
 * Dashboards (docs/architecture.md "Dashboards"): components of a project's data laid out on a grid. Components
 * are a union on `type`: `figure`, `card`, `interactive` (dashboard-components.ts), `table`, `text`,
 * `multiqc` (multiqc.ts) and `section` (dashboard-sections.ts).
 */

/** Columns of the layout grid; `x + w` never exceeds it. */
export const DASHBOARD_GRID_COLUMNS = 12;

export const COMPONENT_TYPES = [
  'figure',
  'card',
  'interactive',
  'table',
  'text',
  'multiqc',
  'section',
  'image',
] as const;
export type ComponentType = (typeof COMPONENT_TYPES)[number];

/** A paged, sortable view of one data collection of the dashboard's project. */
export const tableComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('table'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    data_collection_id: z.string().min(1).max(64),
    /** The columns shown, in this order; all of them when absent. */
    columns: z.array(columnNameSchema).min(1).max(500).optional(),
    page_size: z.number().int().min(1).max(1000).default(25),
    /** The order before the reader picks one (nulls last; the shown columns break ties). */
    sort: z.array(sortKeySchema).max(20).default([]),
    /** Numeric columns whose cells are coloured by their value (table-scales.ts). */
    color_scales: z.array(tableColorScaleSchema).max(20).optional(),
    /**
     * The column that names a row: selected rows filter the other components by its values
     * (docs/dashboards.md "Tables"). Default: the collection's key, when it is one column; without
     * either, rows cannot be selected.
     */
    select_by: columnNameSchema.optional(),
  })
  .meta({ id: 'TableComponent' });
export type TableComponent = z.infer<typeof tableComponentSchema>;

/** Markdown text (headings, paragraphs, lists, emphasis, code, links). */
export const textComponentSchema = z
  .strictObject({
    component_id: componentIdSchema,
    type: z.literal('text'),
    title: componentTitleSchema,
    tab_id: componentTabSchema,
    markdown: z.string().max(100_000),
  })
  .meta({ id: 'TextComponent' });
export type TextComponent = z.infer<typeof textComponentSchema>;

export const dashboardComponentSchema = z
  .discriminatedUnion(
    'type',
    [
      figureComponentSchema,
      cardComponentSchema,
      interactiveComponentSchema,
      tableComponentSchema,
      textComponentSchema,
      multiqcComponentSchema,
      sectionComponentSchema,
      imageComponentSchema,
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union' ? `type must be one of ${COMPONENT_TYPES.join(', ')}` : undefined,
    },
  )
  .meta({ id: 'DashboardComponent' });
export type DashboardComponent = z.infer<typeof dashboardComponentSchema>;
export type DashboardComponentInput = z.input<typeof dashboardComponentSchema>;

/** The components that read a data collection: all but those that only shape the page (text, sections). */
export type CollectionComponent = Exclude<DashboardComponent, TextComponent | SectionComponent>;
export function readsCollection(component: DashboardComponent): component is CollectionComponent {
  return component.type !== 'text' && component.type !== 'section';
}

/** Where a component sits: column `x` (0-based) and row `y`, `w` columns wide and `h` rows high. */
export const layoutItemSchema = z
  .strictObject({
    component_id: componentIdSchema,
    x: z
      .number()
      .int()
      .min(0)
      .max(DASHBOARD_GRID_COLUMNS - 1),
    y: z.number().int().min(0).max(10_000),
    w: z.number().int().min(1).max(DASHBOARD_GRID_COLUMNS),
    h: z.number().int().min(1).max(100),
  })
  .refine((item) => item.x + item.w <= DASHBOARD_GRID_COLUMNS, {
    message: `x + w must not exceed ${DASHBOARD_GRID_COLUMNS} columns`,
    path: ['w'],
  })
  .meta({ id: 'LayoutItem' });
export type LayoutItem = z.infer<typeof layoutItemSchema>;

/**
 * The dashboard's palette: category values (as charts label them) in the order they take the
 * palette's series colours, the n-th value the n-th colour (docs/dashboards.md "Colours"). The
 * server appends values as they first appear in the unfiltered data (`GET /dashboards/{id}/colors`)
 * and never moves one; an author may reorder it in the file.
 */
export const dashboardColorsSchema = z.array(z.string().max(1000)).max(2000).meta({ id: 'DashboardColors' });

/** `GET /dashboards/{id}/colors`: the stored palette, with values new in the data appended. */
export const dashboardColorsAnswerSchema = z
  .object({ colors: dashboardColorsSchema })
  .meta({ id: 'DashboardColorsAnswer' });
export type DashboardColorsAnswer = z.infer<typeof dashboardColorsAnswerSchema>;

const dashboardContentShape = {
  title: nameSchema,
  description: z.string().max(10_000).default(''),
  /** Ordered tabs (dashboard-tabs.ts); none: one implicit tab. */
  tabs: dashboardTabsSchema.default([]),
  components: z.array(dashboardComponentSchema).max(100).default([]),
  /** Each tab's grid: components without an entry are shown below the laid-out ones, full width. */
  layout: z.array(layoutItemSchema).max(100).default([]),
  /** Absent from a save: the stored palette stays. */
  colors: dashboardColorsSchema.optional(),
};

/**
 * Component ids are unique; tabs are known; each layout entry names an existing component, once.
 * Exported so an import can run these checks on the parts of a file that parse, when others do not.
 */
export function checkDashboardContent(
  body: {
    tabs: readonly DashboardTab[];
    components: readonly { component_id: string; type?: string; tab_id?: string | undefined }[];
    layout: readonly GridBox[];
  },
  context: z.RefinementCtx,
) {
  checkTabs(body, context);
  checkSectionWidths(body, DASHBOARD_GRID_COLUMNS, context);
  const ids = new Set<string>();
  body.components.forEach((component, index) => {
    if (ids.has(component.component_id)) {
      context.addIssue({
        code: 'custom',
        path: ['components', index, 'component_id'],
        message: 'another component has this id',
      });
    }
    ids.add(component.component_id);
  });
  const placed = new Set<string>();
  body.layout.forEach((item, index) => {
    if (!ids.has(item.component_id)) {
      context.addIssue({
        code: 'custom',
        path: ['layout', index, 'component_id'],
        message: 'no component has this id',
      });
    } else if (placed.has(item.component_id)) {
      context.addIssue({
        code: 'custom',
        path: ['layout', index, 'component_id'],
        message: 'this component is laid out twice',
      });
    }
    placed.add(item.component_id);
  });
  const tabs = new Map(body.components.map((component) => [component.component_id, tabOf(component, body.tabs)]));
  checkOverlaps(body.layout, tabs, context);
}

/** Whether two entries share a cell of the grid. */
const overlap = (a: GridBox, b: GridBox) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
type GridBox = { component_id: string; x: number; y: number; w: number; h: number };

/**
 * Entries of one tab may not share a cell: refused rather than moved, because where a component
 * ends up is the author's choice (the web editor never produces an overlap; a hand-written file might).
 */
function checkOverlaps(boxes: readonly GridBox[], tabs: ReadonlyMap<string, string | null>, context: z.RefinementCtx) {
  const sameTab = (a: GridBox, b: GridBox) => tabs.get(a.component_id) === tabs.get(b.component_id);
  boxes.forEach((item, index) => {
    const earlier = boxes.findIndex(
      (other, otherIndex) => otherIndex < index && sameTab(item, other) && overlap(item, other),
    );
    if (earlier >= 0) {
      context.addIssue({
        code: 'custom',
        path: ['layout', index],
        message: `'${item.component_id}' overlaps '${boxes[earlier]?.component_id}' (layout[${earlier}]); move one so they share no cell`,
      });
    }
  });
}

/** What a new dashboard starts with: what the request gives, or the project's generated overview. */
export const DASHBOARD_TEMPLATES = ['empty', 'overview'] as const;

export const createDashboardRequestSchema = z
  .strictObject({
    project_id: z.string().min(1).max(64),
    ...dashboardContentShape,
    is_public: z.boolean().default(false),
    /** `overview`: components and layout generated from the project's collections (dashboard-overview.ts). */
    template: z.enum(DASHBOARD_TEMPLATES).default('empty'),
  })
  .superRefine(checkDashboardContent)
  .refine((body) => body.template === 'empty' || (body.components.length === 0 && body.layout.length === 0), {
    message: 'a template makes the components and layout: send none with it',
    path: ['template'],
  })
  .meta({ id: 'CreateDashboardRequest' });
export type CreateDashboardRequest = z.infer<typeof createDashboardRequestSchema>;
export type CreateDashboardRequestInput = z.input<typeof createDashboardRequestSchema>;

/** `PUT /dashboards/{id}` replaces the content; sharing goes through `/permissions`. */
export const updateDashboardRequestSchema = z
  .strictObject(dashboardContentShape)
  .superRefine(checkDashboardContent)
  .meta({ id: 'UpdateDashboardRequest' });
export type UpdateDashboardRequest = z.infer<typeof updateDashboardRequestSchema>;
export type UpdateDashboardRequestInput = z.input<typeof updateDashboardRequestSchema>;

/** `POST /dashboards/{id}/duplicate`: the copy's title (default: the original's, marked as a copy). */
export const duplicateDashboardRequestSchema = z
  .strictObject({ title: nameSchema.optional() })
  .meta({ id: 'DuplicateDashboardRequest' });
export type DuplicateDashboardRequest = z.infer<typeof duplicateDashboardRequestSchema>;

/**
 * A dashboard as a file (`dashboard.yaml`): `GET /dashboards/{id}/yaml`, `POST /dashboards/import`,
 * `service dashboard export|import`, and a results folder for `service ingest`. The content of
 * `PUT /dashboards/{id}`, plus the project it goes to (the import's `project_id` parameter wins).
 * A component's `data_collection_id` may name the collection by its tag instead (a tag used once in
 * the project), so a file can be written before the project exists and kept in a repository.
 */
export const dashboardYamlSchema = z
  .strictObject({
    project_id: z.string().min(1).max(64).optional(),
    ...dashboardContentShape,
  })
  .superRefine(checkDashboardContent)
  .meta({ id: 'DashboardYaml', title: 'Dashboard (dashboard.yaml)' });
export type DashboardYaml = z.infer<typeof dashboardYamlSchema>;

/** `POST /dashboards/import?project_id=`: the project, when the file names none or another. */
export const dashboardImportQuerySchema = z.strictObject({ project_id: z.string().min(1).max(64).optional() });

export const dashboardPermissionsRequestSchema = sharingRequestSchema('dashboard');

export const dashboardSchema = z
  .object({
    dashboard_id: z.string(),
    project_id: z.string(),
    title: z.string(),
    description: z.string(),
    is_public: z.boolean(),
    /** The dashboard's own members; the project's members have their standing too (see `my_role`). */
    permissions: membersSchema,
    /** The caller's standing on the dashboard, its project's members included.
     * `null` only in the answer to a sharing change that left the caller without access. */
    my_role: projectRoleSchema.nullable(),
    /** The caller's standing on the dashboard's project; `null` when they may not open the project
     * (the dashboard alone was shared with them). */
    project_role: projectRoleSchema.nullable(),
    tabs: dashboardTabsSchema,
    layout: z.array(layoutItemSchema),
    components: z.array(dashboardComponentSchema),
    colors: dashboardColorsSchema,
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Dashboard' });
export type Dashboard = z.infer<typeof dashboardSchema>;
/**
 * A dashboard in `GET /dashboards`: with its project's name, so lists need not fetch each project;
 * null for a dashboard shared alone with someone who may not read its project.
 */
export const dashboardListItemSchema = dashboardSchema
  .extend({ project_name: z.string().nullable() })
  .meta({ id: 'DashboardListItem' });
export type DashboardListItem = z.infer<typeof dashboardListItemSchema>;
export const dashboardListSchema = listAnswerSchema(dashboardListItemSchema).meta({ id: 'DashboardList' });

/** How `GET /dashboards` orders: newest first (`created`), last changed first (`updated`), or by name. */
export const dashboardSortSchema = z.enum(['created', 'updated', 'title', 'project']);
export type DashboardSort = z.infer<typeof dashboardSortSchema>;

export const dashboardListQuerySchema = z.strictObject({
  project_id: z.string().min(1).max(64).optional(),
  /** Only dashboards whose title contains this text, any case. */
  q: nameSearchSchema.optional(),
  sort: dashboardSortSchema.default('created'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  skip: z.coerce.number().int().min(0).default(0),
});

export const componentParamsSchema = z.strictObject({
  id: z.string().min(1).max(64),
  component_id: componentIdSchema,
});

/** A page of a table component; `limit` defaults to its `page_size`, `sort` to its `sort`. */
export const componentRowsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  skip: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  sort: sortParamSchema.optional(),
  /** The dashboard's filters, as in `POST /dashboards/{id}/data` (JSON). */
  filters: dashboardFiltersParamSchema.optional(),
  /** Time travel, as in `POST /dashboards/{id}/data`: an ISO time, or a JSON map of versions. */
  as_of: asOfParamSchema.optional(),
  /** The reader's filters in the table's header (table-filters.ts), JSON; they narrow only this table. */
  column_filters: tableColumnFiltersParamSchema.optional(),
});
export type ComponentRowsQuery = z.infer<typeof componentRowsQuerySchema>;

/** Components a data request may preview (the editor's side panel and its changed components). */
export const MAX_PREVIEW_COMPONENTS = 100;

/** `POST /dashboards/{id}/data` (docs/architecture.md "Dashboards"; answer in dashboard-data.ts). */
export const dashboardDataRequestSchema = z
  .strictObject({
    filters: dashboardFiltersSchema.default([]),
    /** Only this tab's components (the filters still apply whatever tab set them); an id no tab has is a 400. */
    tab_id: tabIdSchema.optional(),
    /** Only these components (default: every component that reads a collection; with `preview`, the previewed ones). */
    components: z.array(componentIdSchema).min(1).max(100).optional(),
    as_of: asOfSchema.optional(),
    /**
     * Components not saved yet (edit mode), computed as if they were in the dashboard: one with the
     * id of a saved component stands in for it. Only for those who may edit the dashboard; a caller
     * who cannot read the project may preview only what the dashboard already shows.
     */
    preview: z.array(dashboardComponentSchema).min(1).max(MAX_PREVIEW_COMPONENTS).optional(),
    /**
     * A reader's contig per coverage track of contigs (the `?contigs=` of the address bar): drawn
     * instead of the component's `contig`, in any spelling (`chr2`, `2`). A component that is no
     * coverage track with `chromosome` is a 400; a contig its table lacks answers in its slot.
     */
    contigs: z
      .record(componentIdSchema, z.string().trim().min(1).max(1000))
      .refine((contigs) => Object.keys(contigs).length <= 100, 'at most 100 contigs')
      .optional(),
  })
  .meta({ id: 'DashboardDataRequest' });
export type DashboardDataRequest = z.infer<typeof dashboardDataRequestSchema>;
export type DashboardDataRequestInput = z.input<typeof dashboardDataRequestSchema>;

/**
 * A table component's rows as CSV: all of them under the filters and its column filters, in its
 * (or `sort`'s) order; its columns, or the reader's (`columns`: some of them, in the reader's order).
 */
export const componentDownloadQuerySchema = componentRowsQuerySchema
  .pick({ sort: true, filters: true, as_of: true, column_filters: true })
  .extend({ columns: shownColumnsParamSchema.optional() });
export type ComponentDownloadQuery = z.infer<typeof componentDownloadQuerySchema>;
