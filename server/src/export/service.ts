import {
  type AsOf,
  type CardData,
  type CardSpec,
  type ColorAssignment,
  cardLabel,
  chartDescription,
  chartOption,
  colorAssignment,
  type DashboardComponent,
  type DashboardFilter,
  type ExportQuery,
  type ExportSpec,
  type FigureData,
  type MultiqcData,
  multiqcDescription,
  multiqcOption,
  type PreviewAnswer,
  type TableSpec,
} from '@service/common';
import type { DashboardColors } from '../dashboards/colors.js';
import type { DashboardDataService, FailureReport } from '../dashboards/data/service.js';
import type { DashboardRecord } from '../dashboards/repository.js';
import { componentsOf, type DashboardsService } from '../dashboards/service.js';
import { DomainError, notFound } from '../errors.js';
import type { ImageStore } from '../images/store.js';
import type { Actor } from '../policy/actor.js';
import type { EmbedGrant, EmbedTokens } from './embed-tokens.js';
import { gallerySpec } from './gallery.js';
import { type Page, renderPage } from './page.js';
import { cardHtml, figureHtml, messageHtml, tableHtml, textHtml } from './render.js';

/** Who asks: an embed token from the query string, or else whoever the request's bearer token says. */
export interface ExportCaller {
  token: string | undefined;
  actor(): Promise<Actor>;
}

export type ExportAnswer = { format: 'spec'; spec: ExportSpec } | { format: 'html'; page: Page };

type Exportable = Exclude<DashboardComponent, { type: 'interactive' | 'text' | 'section' | 'image' }>;

/**
 * `GET /export/components/{dashboard_id}/{component_id}` (docs/architecture.md "Export"): one
 * component as a spec (the same ECharts option the web app draws) or a self-contained page, for
 * its readers, anyone when public, or the holder of an embed token for it.
 */
export class ExportService {
  constructor(
    private readonly dashboards: Pick<DashboardsService, 'access' | 'repository'>,
    private readonly data: Pick<DashboardDataService, 'prepareRead' | 'answer' | 'rowsOf'>,
    private readonly colors: Pick<DashboardColors, 'assign'>,
    private readonly tokens: Pick<EmbedTokens, 'redeem'>,
    private readonly frameAncestors: readonly string[],
    private readonly images?: Pick<ImageStore, 'thumbnailBytes'>,
  ) {}

  async export(
    caller: ExportCaller,
    dashboardId: string,
    componentId: string,
    query: ExportQuery,
    report: FailureReport,
  ): Promise<ExportAnswer> {
    const { record, grant } = await this.admit(caller, dashboardId, componentId);
    const component = componentsOf(record).find((candidate) => candidate.component_id === componentId);
    if (!component) throw notFound('component');
    const title = component.title ?? null;
    if (component.type === 'interactive' || component.type === 'section') {
      const what = component.type === 'section' ? 'a section header' : 'a filter widget';
      throw new DomainError('validation_failed', `${what} has nothing to export`, [
        { path: 'params.component_id', message: `figures, cards, tables and text export; ${what} does not` },
      ]);
    }
    if (component.type === 'text') {
      if (query.format === 'spec') {
        throw new DomainError('validation_failed', 'a text component exports as HTML only', [
          { path: 'querystring.format', message: 'use format=html for a text component' },
        ]);
      }
      return this.page(title ?? 'Text', query, textHtml(title, component.markdown));
    }
    checkReaderView(component, query);
    const data = await this.dataOf(record, component, grant, query, report);
    // The dashboard's stored palette: only the values this chart draws reach the page.
    const colors = component.type === 'figure' ? colorAssignment(await this.colors.assign(record, report)) : undefined;
    const spec =
      component.type === 'image'
        ? await gallerySpec(component, data.data as PreviewAnswer, this.images)
        : specOf(component, data, query, colors, grant !== null);
    if (query.format === 'spec') {
      return {
        format: 'spec',
        spec: {
          dashboard_id: dashboardId,
          component_id: componentId,
          type: component.type,
          title,
          spec: spec.spec,
          version: data.version,
        },
      };
    }
    return this.page(title ?? spec.fallbackTitle, query, spec.html, spec.option);
  }

  /** A page saying why there is nothing to show, framed and styled like the component's would be. */
  message(title: string, detail: string, query: Pick<ExportQuery, 'theme'>): Promise<Page> {
    return renderPage({ title, theme: query.theme, body: messageHtml(title, detail) }, this.frameAncestors);
  }

  private async page(title: string, query: ExportQuery, body: string, option?: unknown): Promise<ExportAnswer> {
    const content = { title, theme: query.theme, body, ...(option === undefined ? {} : { option }) };
    return { format: 'html', page: await renderPage(content, this.frameAncestors) };
  }

  /**
   * The dashboard, if the caller may read it. A token decides alone (a bearer token beside it is
   * not looked at); without one, the policy does, except that an anonymous caller on a private
   * dashboard is told to sign in (401) rather than told nothing is there, as docs/architecture.md "Export" fixes.
   */
  private async admit(
    caller: ExportCaller,
    dashboardId: string,
    componentId: string,
  ): Promise<{ record: DashboardRecord; grant: EmbedGrant | null }> {
    if (caller.token !== undefined) {
      const grant = await this.tokens.redeem(caller.token, dashboardId, componentId);
      return { record: grant.record, grant };
    }
    const actor = await caller.actor();
    try {
      return { record: (await this.dashboards.access(actor, dashboardId, 'resource.read')).record, grant: null };
    } catch (error) {
      const hidden = error instanceof DomainError && error.code === 'not_found';
      if (hidden && actor.kind === 'anonymous' && (await this.dashboards.repository.find(dashboardId))) {
        throw new DomainError('unauthenticated', 'sign in, or use an embed token, to export this component');
      }
      throw error;
    }
  }

  /**
   * The component's data as the data route computes it, under the caller's filters with a token's
   * fixed ones on top (docs/architecture.md "Export"): the fixed ones narrow every component, the one they name
   * included, so a query string can only narrow what the token shows; and under a component's
   * token the caller may filter by that component alone, or other components' filters would
   * answer questions about columns it never shows. A token's pinned `as_of` wins; a token without
   * one shows the live tables, and a caller may not time-travel with it.
   */
  private async dataOf(
    record: DashboardRecord,
    component: Exportable | Extract<DashboardComponent, { type: 'image' }>,
    grant: EmbedGrant | null,
    query: ExportQuery,
    report: FailureReport,
  ) {
    const filters = query.filters ?? [];
    if (grant !== null) checkCallerView(grant, filters, query);
    const asOf = readAsOf(grant, query);
    const id = component.component_id;
    const fixed = grant?.filters ?? [];
    if (component.type === 'table' && (query.column_filters !== undefined || query.sort !== undefined)) {
      // The reader's header filters and order: the first page as the rows route pages it.
      const { column_filters, sort } = query;
      const page = await this.data.rowsOf(record, id, { filters, fixed, as_of: asOf, skip: 0, column_filters, sort });
      return { data: page, version: { [component.data_collection_id]: page.version } };
    }
    const request = {
      filters,
      fixed,
      components: [id],
      ...(asOf === undefined ? {} : { as_of: asOf }),
      ...(query.contig === undefined ? {} : { contigs: { [id]: query.contig } }),
    };
    const answer = await this.data.answer(await this.data.prepareRead(record, request, report));
    const data = answer.components[component.component_id];
    if (data === undefined) throw new DomainError('component_unavailable', 'the component has no data');
    if (typeof data === 'object' && data !== null && 'error' in data) {
      // A query stopped at its time limit says so (504), as a whole data request would; anything
      // else is the component's own trouble (a column dropped since it was saved).
      if (data.error.code === 'time_limit_exceeded') throw new DomainError('time_limit_exceeded', data.error.message);
      throw new DomainError('component_unavailable', data.error.message);
    }
    return { data, version: answer.version };
  }
}

/** A token's pinned `as_of` wins over the query's (which it forbids: see `checkCallerView`). */
function readAsOf(grant: EmbedGrant | null, query: ExportQuery): AsOf | undefined {
  return grant === null ? query.as_of : (grant.asOf ?? undefined);
}

/** What a token's holder may add to its view: filters within its scope, and no time travel. */
function checkCallerView(grant: EmbedGrant, filters: readonly DashboardFilter[], query: ExportQuery): void {
  if (query.as_of !== undefined) {
    throw new DomainError('validation_failed', "an embed token's view is fixed", [
      { path: 'querystring.as_of', message: 'the embed token decides which table versions are shown' },
    ]);
  }
  const scope = grant.componentId;
  const outside = filters.flatMap((filter, index) =>
    scope === null || filter.component_id === scope
      ? []
      : [{ path: `querystring.filters[${index}].component_id`, message: `the embed token opens ${scope} alone` }],
  );
  if (outside.length > 0)
    throw new DomainError(
      'validation_failed',
      "filters may only name components inside the embed token's scope",
      outside,
    );
}

/**
 * A reader's view of the component (docs/export.md): a table's header filters, order and columns,
 * a coverage track's contig; each only for a component that has it (else 400 at its parameter).
 */
function checkReaderView(component: Exportable | Extract<DashboardComponent, { type: 'image' }>, query: ExportQuery) {
  const table = component.type === 'table';
  const track = component.type === 'figure' && component.chart === 'coverage' && component.chromosome !== undefined;
  const problems = [
    ...(['column_filters', 'sort', 'columns'] as const).flatMap((name) =>
      query[name] === undefined || table ? [] : [{ path: `querystring.${name}`, message: 'only a table has this' }],
    ),
    ...(query.contig === undefined || track
      ? []
      : [{ path: 'querystring.contig', message: 'only a coverage track with a chromosome column has a contig' }]),
  ];
  if (problems.length > 0) throw new DomainError('validation_failed', 'not a view this component has', problems);
}

/**
 * A table's page as its reader shows it: `columns` (the reader's, in order; 400 for one the table
 * does not show) or else the table's, each row with those alone (no selection key carried along).
 */
function shownPage(page: PreviewAnswer, columns: readonly string[] | undefined): TableSpec {
  const byName = new Map(page.columns.map((column) => [column.name, column]));
  const shown = (columns ?? page.columns.map((column) => column.name)).map((name, index) => {
    const column = byName.get(name);
    if (column !== undefined) return column;
    throw new DomainError('validation_failed', `the table shows no column ${JSON.stringify(name)}`, [
      { path: `querystring.columns[${index}]`, message: `the table shows no column ${JSON.stringify(name)}` },
    ]);
  });
  return {
    columns: shown,
    rows: page.rows.map((row) => Object.fromEntries(shown.map((column) => [column.name, row[column.name]]))),
    ...(page.color_ranges === undefined ? {} : { color_ranges: page.color_ranges }),
  };
}

/** The component's spec and page; under a token (`tokened`) a card shows no whole-table number. */
function specOf(
  component: Exportable,
  { data }: { data: unknown },
  query: ExportQuery,
  colors: ColorAssignment | undefined,
  tokened: boolean,
) {
  const title = component.title ?? null;
  switch (component.type) {
    case 'figure': {
      const figure = data as FigureData;
      const option = chartOption(component, figure, { theme: query.theme, ...(colors ? { colors } : {}) });
      return {
        spec: option as Record<string, unknown>,
        html: figureHtml(chartDescription(component, figure)),
        option,
        fallbackTitle: 'Chart',
      };
    }
    case 'card': {
      const card = data as CardData;
      const spec: CardSpec = {
        value: card.value,
        unfiltered_value: tokened ? null : card.unfiltered_value,
        label: cardLabel(component),
        ...(card.comparison === undefined ? {} : { comparison: card.comparison }),
        ...(card.sparkline === undefined ? {} : { sparkline: card.sparkline }),
      };
      return { spec, html: cardHtml(title, spec, component), option: undefined, fallbackTitle: spec.label };
    }
    case 'table': {
      const spec = shownPage(data as PreviewAnswer, query.columns);
      return { spec, html: tableHtml(title, spec, component.color_scales), option: undefined, fallbackTitle: 'Table' };
    }
    case 'multiqc':
      return multiqcSpecOf(component, data as MultiqcData, query);
  }
}

/** A MultiQC plot: its ECharts option, or, for MultiQC's tables, a table of its rows. */
function multiqcSpecOf(component: Extract<Exportable, { type: 'multiqc' }>, data: MultiqcData, query: ExportQuery) {
  const option = multiqcOption(component, data, { theme: query.theme });
  const fallbackTitle = data.title;
  if (option !== null) {
    return {
      spec: option as Record<string, unknown>,
      html: figureHtml(multiqcDescription(component, data)),
      option,
      fallbackTitle,
    };
  }
  if (data.plot_type !== 'table') throw new Error('unreachable: only tables have no chart option');
  const spec: TableSpec = {
    columns: [
      { name: 'sample', type: 'string', nullable: false, description: null },
      ...data.columns.map((column) => ({
        name: column.key,
        type: 'double',
        nullable: true,
        description: column.title,
      })),
    ],
    rows: data.rows.map((row) => ({ sample: row.sample, ...row.values })),
  };
  return { spec, html: tableHtml(component.title ?? null, spec), option: undefined, fallbackTitle };
}
