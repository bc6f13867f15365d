import {
  type AsOf,
  type ComponentData,
  type ComponentDownloadQuery,
  type ComponentRowsQuery,
  type DashboardComponent,
  type DashboardDataAnswer,
  type DashboardDataRequest,
  type DashboardFilter,
  type PreviewAnswer,
  readsCollection,
} from '@service/common';
import { collectionsBetween, componentError, FilterPlan } from '../../analytics/index.js';
import type { DataCollectionQueries, Download, SharedScalars, TableSnapshot } from '../../datacollections/queries.js';
import type { Database } from '../../db/database.js';
import type { DataCollectionsTable } from '../../db/tables.js';
import type { DuckDB } from '../../engine/duckdb.js';
import { DomainError, notFound } from '../../errors.js';
import type { MultiqcService } from '../../multiqc/service.js';
import type { Actor } from '../../policy/actor.js';
import { can } from '../../policy/policy.js';
import { widenings } from '../readings.js';
import type { DashboardRecord } from '../repository.js';
import { componentsOf, type DashboardsService, tabsOf } from '../service.js';
import { answerKey, noTable, tablesRead } from './answer-keys.js';
import { type AsOfDeps, type ReadVersions, versionsAsOf } from './as-of.js';
import type { AnswerCache } from './cache.js';
import { type ComputedComponent, chosen, readBy } from './chosen.js';
import { inCompletionOrder } from './concurrency.js';
import { withReaderContigs } from './contigs.js';
import { projectJoins } from './joins.js';
import { type ComponentResult, type PreparedData, whole } from './prepared.js';
import { rangeFilteredColumns } from './range-columns.js';
import { checkRequestSize, type RequestSizeLimits, withinAnswerBudget } from './request-limits.js';
import { shareScalars } from './shared-scalars.js';
import { type IdleGate, opensTabUnfiltered, type TabWarmer, warmingOf } from './tab-warmer.js';
import { type TreeFiles, treeOrError } from './tree-files.js';

export type { AnsweredComponent, ComponentResult, PreparedData } from './prepared.js';

/** Components computed at once: DuckDB already spreads each over its threads. */
const CONCURRENT_COMPONENTS = 3;

/** What one request reads: the dashboard, its components, the filters and a snapshot per collection. */
export interface DataPlan {
  record: DashboardRecord;
  /** Every component of the dashboard (filters may name any of them). */
  components: readonly DashboardComponent[];
  filters: readonly DashboardFilter[];
  /** The snapshot read per data collection, all components of one collection seeing the same one. */
  sources: ReadonlyMap<string, TableSnapshot>;
  /** How the filters narrow each component. */
  narrowings: FilterPlan;
}

/** What filters, time travel and the answer cache use. */
export interface DashboardDataDeps extends AsOfDeps {
  database: Pick<Database, 'db'>;
  duckdb: Pick<DuckDB, 'withConnection'>;
  answers: AnswerCache;
  /** MultiQC plots' data (the `multiqc` component). */
  multiqc: Pick<MultiqcService, 'componentData'>;
  /** Tree figures' Newick files. */
  trees: Pick<TreeFiles, 'treeOf'>;
  /** What one request may carry and answer (SERVICE_DATA_*). */
  limits: RequestSizeLimits & { maxAnswerBytes: number };
  /** Computes a dashboard's other tabs ahead once one is read unfiltered. */
  warmer: Pick<TabWarmer, 'schedule'>;
}

/** Failures a component could not recover from, for the caller's log (the answer says only that it failed). */
export type FailureReport = (componentId: string, error: unknown) => void;

/**
 * `POST /dashboards/{id}/data` (docs/architecture.md "Dashboards"): every (or the named) non-text component's
 * data for a set of filters, from one snapshot per collection. Authorized like the rows route:
 * the dashboard's readers.
 */
export class DashboardDataService {
  constructor(
    private readonly dashboards: Pick<DashboardsService, 'access' | 'repository'>,
    private readonly queries: Pick<
      DataCollectionQueries,
      | 'snapshotOf'
      | 'componentData'
      | 'componentPage'
      | 'galleryPage'
      | 'componentCsv'
      | 'scalarNeeds'
      | 'sharedScalars'
    >,
    private readonly deps: DashboardDataDeps,
  ) {}

  /** Checks access and the request, and reads the versions; computing happens as the answer is consumed. */
  async prepare(
    actor: Actor,
    dashboardId: string,
    request: DashboardDataRequest,
    report: FailureReport,
  ): Promise<PreparedData> {
    checkRequestSize(this.deps.limits, request);
    const { record, components, previewed } = await this.withPreview(actor, dashboardId, request.preview);
    return this.prepareRead(record, { ...request, components: request.components ?? previewed }, report, components);
  }

  /**
   * `prepare` for a dashboard whose reading the caller has already authorized (an embed token's,
   * its filters in `fixed`); `components` are the dashboard's unless previews stand in for some.
   */
  async prepareRead(
    record: DashboardRecord,
    request: DashboardDataRequest & { fixed?: readonly DashboardFilter[] },
    report: FailureReport,
    components: readonly DashboardComponent[] = componentsOf(record),
  ): Promise<PreparedData> {
    const prepared = await this.prepareComponents(record, request, report, components);
    if (!opensTabUnfiltered(request)) return prepared;
    // Once this tab is answered (not when its reader left first), the other tabs ahead.
    const others = tabsOf(record).filter((tab) => tab.tab_id !== request.tab_id);
    const warm = warmingOf(others, (tab_id, gate) =>
      this.prepareComponents(record, { filters: [], tab_id }, report, components, gate),
    );
    const { warmer } = this.deps;
    return {
      version: prepared.version,
      async *components() {
        yield* prepared.components();
        warmer.schedule(record.row.id, warm);
      },
    };
  }

  /** `prepareRead`'s plan; with a `gate`, each component first waits for it (background work). */
  private async prepareComponents(
    record: DashboardRecord,
    request: DashboardDataRequest & { fixed?: readonly DashboardFilter[] },
    report: FailureReport,
    components: readonly DashboardComponent[],
    gate?: IdleGate,
  ): Promise<PreparedData> {
    checkRequestSize(this.deps.limits, { filters: request.filters });
    const drawn = withReaderContigs(components, request.contigs);
    const wanted = chosen(drawn, request.components, { tabs: tabsOf(record), tab_id: request.tab_id });
    const plan = await this.read(record, drawn, wanted, request, request.as_of, 'body');
    const version = Object.fromEntries(
      [...plan.sources].map(([id, source]) => [id, source.snapshot?.version ?? null] as const),
    );
    const shared = shareScalars(plan, wanted, { answers: this.deps.answers, queries: this.queries });
    // Components that wait for a shared pass go last: the others run meanwhile.
    const ordered = [
      ...wanted.filter((component) => !shared.lookups.has(component.component_id)),
      ...wanted.filter((component) => shared.lookups.has(component.component_id)),
    ];
    const settle = (component: ComputedComponent) => () =>
      this.settle(plan, component, report, shared.lookups.get(component.component_id));
    const tasks = ordered.map((component) =>
      gate === undefined ? settle(component) : () => gate().then(settle(component)),
    );
    return {
      version,
      components: () => {
        shared.start();
        return withinAnswerBudget(inCompletionOrder(tasks, CONCURRENT_COMPONENTS), this.deps.limits.maxAnswerBytes);
      },
    };
  }

  /**
   * The dashboard's components, with `preview` standing in (edit mode's unsaved components). Only
   * editors preview; one who cannot read the project may preview only what the dashboard already
   * shows (the rule a save follows). Collections outside the project answer as unknown.
   */
  private async withPreview(actor: Actor, dashboardId: string, preview: readonly DashboardComponent[] | undefined) {
    if (preview === undefined) {
      const { record } = await this.dashboards.access(actor, dashboardId, 'resource.read');
      return { record, components: componentsOf(record), previewed: undefined };
    }
    const { record, project } = await this.dashboards.access(actor, dashboardId, 'resource.edit');
    const saved = componentsOf(record);
    if (!can(actor, 'resource.read', project)) {
      const widened = widenings(saved, preview);
      if (widened.length > 0) {
        throw new DomainError(
          'forbidden',
          `previewing more of the project than this dashboard already shows needs read access to the project: ${widened.join('; ')}`,
        );
      }
    }
    const replaced = new Set(preview.map((component) => component.component_id));
    return {
      record,
      components: [...saved.filter((component) => !replaced.has(component.component_id)), ...preview],
      previewed: preview.filter(readsCollection).map((component) => component.component_id),
    };
  }

  /** An `as_of` checked as this route checks its own (an embed token's, when made): 400 at `path`, or 404. */
  async checkAsOf(record: DashboardRecord, asOf: AsOf, path: string): Promise<void> {
    const components = componentsOf(record);
    const read = [...new Set(readBy(components))];
    const rows = await this.dashboards.repository.collectionRowsOfProject(record.row.project_id, read);
    await this.snapshots(rows, await versionsAsOf(this.deps, asOf, read, path), components);
  }

  /** The whole answer at once (the JSON form), as `whole` says. */
  async answer(prepared: PreparedData): Promise<DashboardDataAnswer> {
    const components: DashboardDataAnswer['components'] = {};
    for (const result of await whole(prepared)) components[result.component_id] = result.data;
    return { version: prepared.version, components };
  }

  /**
   * `answer` as the JSON text the route sends, joined from each component's JSON: the answer
   * object is never walked again (a response schema's check of a 14 MB answer held the event loop
   * for over a second, its `JSON.stringify` for a few hundred milliseconds more).
   */
  async answerJson(prepared: PreparedData): Promise<string> {
    const components = (await whole(prepared)).map((result) => `${JSON.stringify(result.component_id)}:${result.json}`);
    return `{"version":${JSON.stringify(prepared.version)},"components":{${components.join(',')}}}`;
  }

  /**
   * A page of a table component's rows under the dashboard's filters (`filters`, `as_of` as in
   * `POST /data`), authorized by the dashboard alone: a reader of a public dashboard pages its
   * tables without being able to open the project.
   */
  async rows(
    actor: Actor,
    dashboardId: string,
    componentId: string,
    query: ComponentRowsQuery,
  ): Promise<PreviewAnswer> {
    const { record } = await this.dashboards.access(actor, dashboardId, 'resource.read');
    return this.rowsOf(record, componentId, query);
  }

  /** `rows` of a dashboard the caller may already read (an export's: an embed token's filters in `fixed`). */
  async rowsOf(
    record: DashboardRecord,
    componentId: string,
    query: ComponentRowsQuery & { fixed?: readonly DashboardFilter[] },
  ): Promise<PreviewAnswer> {
    const { plan, component, source } = await this.tableOf(record, componentId, query);
    const { narrowing, key, collections } = plan.narrowings.of(component);
    if (component.type === 'image') {
      const at = { skip: query.skip, limit: query.limit };
      const key2 = { component, tables: tablesRead(plan, component, collections), filters: key, extra: at };
      const gallery = this.deps.answers.answer(key2, () => this.queries.galleryPage(source, component, at, narrowing));
      return (await gallery) as PreviewAnswer;
    }
    const page = {
      limit: query.limit ?? component.page_size,
      skip: query.skip,
      sort: query.sort ?? component.sort,
      column_filters: query.column_filters,
    };
    const answer = await this.deps.answers.answer(
      { component, tables: tablesRead(plan, component, collections), filters: key, extra: page },
      () => this.queries.componentPage(source, component, page, narrowing),
    );
    return answer as PreviewAnswer;
  }

  /**
   * A table component's rows as CSV: every row under the dashboard's filters and its column
   * filters (`filters`, `as_of`, `column_filters` as in `rows`), in its order, its columns or the
   * reader's (`columns`); for the same readers as `rows`, who could page through them all there.
   * Not cached: a file streamed once.
   */
  async download(
    actor: Actor,
    dashboardId: string,
    componentId: string,
    query: ComponentDownloadQuery,
  ): Promise<Download> {
    const { record } = await this.dashboards.access(actor, dashboardId, 'resource.read');
    const { plan, component, source } = await this.tableOf(record, componentId, query);
    if (component.type !== 'table') throw noRows(component.type);
    const { column_filters, columns } = query;
    const csvQuery = { sort: query.sort ?? component.sort, column_filters, columns };
    return this.queries.componentCsv(source, component.columns, csvQuery, plan.narrowings.of(component).narrowing);
  }

  /** A table component of the dashboard, with what the query's filters (and `fixed` ones) and version read. */
  private async tableOf(
    record: DashboardRecord,
    componentId: string,
    query: Omit<ComponentDownloadQuery, 'columns'> & { fixed?: readonly DashboardFilter[] },
  ) {
    checkRequestSize(this.deps.limits, query);
    const components = componentsOf(record);
    const component = components.find((candidate) => candidate.component_id === componentId);
    if (!component) throw notFound('component');
    // A gallery pages its images as a table pages its rows.
    if (component.type !== 'table' && component.type !== 'image') throw noRows(component.type);
    const plan = await this.read(record, components, [component], query, query.as_of, 'querystring');
    const source = plan.sources.get(component.data_collection_id);
    if (source === undefined) throw notFound("the component's data collection");
    return { plan, component, source };
  }

  /**
   * What a request reads: a snapshot of each collection its components and filters read (at the
   * versions `as_of` chooses), and how the filters (the caller's, and an embed token's fixed ones)
   * narrow each component; bad filters → 400.
   */
  private async read(
    record: DashboardRecord,
    components: readonly DashboardComponent[],
    wanted: readonly ComputedComponent[],
    { filters: caller = [], fixed = [] }: { filters?: readonly DashboardFilter[]; fixed?: readonly DashboardFilter[] },
    asOf: AsOf | undefined,
    where: 'body' | 'querystring',
  ): Promise<DataPlan> {
    const filters = [...caller, ...fixed];
    // The collections read: the components' own, those of the filters, and those between them on
    // the chains of joins that carry the filters across.
    const filtering = new Set(filters.map((filter) => filter.component_id));
    const wantedIds = new Set(wanted.map((component) => component.component_id));
    const collectionOf = (keep: (id: string) => boolean) =>
      components.filter(readsCollection).flatMap((c) => (keep(c.component_id) ? [c.data_collection_id] : []));
    const joins = await projectJoins(this.deps.database.db, record.row.project_id);
    const own = collectionOf((id) => wantedIds.has(id));
    const filtered = collectionOf((id) => filtering.has(id));
    const read = new Set([...own, ...filtered, ...collectionsBetween(joins, own, filtered)]);
    const versions = await versionsAsOf(this.deps, asOf, [...read], `${where}.as_of`, readBy(components));
    const collections = await this.dashboards.repository.collectionRowsOfProject(record.row.project_id, [...read]);
    const sources = await this.snapshots(collections, versions, components);
    const narrowings = await FilterPlan.build(
      {
        components,
        filters: caller,
        fixed,
        joins,
        sources,
        path: `${where}.filters`,
      },
      this.deps.duckdb,
    );
    return { record, components, filters, sources, narrowings };
  }

  /**
   * The snapshot each collection is read at (`as_of` chooses other versions than the latest),
   * with the columns the dashboard filters it by range.
   */
  private async snapshots(
    collections: readonly DataCollectionsTable[],
    versions: ReadVersions,
    components: readonly DashboardComponent[],
  ): Promise<Map<string, TableSnapshot>> {
    const read = await Promise.all(
      collections.map(async (row) => {
        const version = versions.get(row.id);
        if (version === null) return noTable(row, this.deps);
        const source = await this.queries.snapshotOf(row, version);
        return { ...source, clusterBy: rangeFilteredColumns(components, row.id) };
      }),
    );
    return new Map(read.map((source) => [source.row.id, source]));
  }

  /**
   * One component's data, from the answer cache when the same component was computed over the
   * same table versions (its own and the joined ones its filters read) for the same filters.
   */
  private async compute(plan: DataPlan, component: ComputedComponent, shared?: SharedScalars): Promise<ComponentData> {
    const source = plan.sources.get(component.data_collection_id);
    if (source === undefined) {
      return componentError(
        'unknown_collection',
        "the component's data collection no longer exists in the dashboard's project",
        'data_collection_id',
      );
    }
    const { narrowing } = plan.narrowings.of(component);
    if (component.type === 'figure' && component.chart === 'tree') {
      // The answer depends on the tree file's content too, which no table version tells.
      const tree = await treeOrError(this.deps.trees, source.row, component);
      if ('error' in tree) return tree;
      const key = { ...answerKey(plan, component), extra: { tree: tree.sha256 } };
      return this.deps.answers.answer(key, () =>
        this.queries.componentData(source, component, narrowing, shared, tree),
      );
    }
    return this.deps.answers.answer(answerKey(plan, component), () =>
      component.type === 'multiqc'
        ? this.deps.multiqc.componentData(source, component, narrowing)
        : this.queries.componentData(source, component, narrowing, shared),
    );
  }

  private async settle(
    plan: DataPlan,
    component: ComputedComponent,
    report: FailureReport,
    shared?: SharedScalars,
  ): Promise<ComponentResult> {
    const id = component.component_id;
    try {
      return { component_id: id, data: await this.compute(plan, component, shared) };
    } catch (error) {
      if (error instanceof DomainError) {
        const field = error.errors?.[0]?.path ?? null;
        return { component_id: id, data: componentError(error.code, error.message, field), failure: error };
      }
      report(id, error);
      return { component_id: id, data: componentError('internal_error', 'this component could not be computed') };
    }
  }
}

function noRows(type: string): DomainError {
  return new DomainError('validation_failed', `a ${type} component has no rows`, [
    { path: 'params.component_id', message: `a ${type} component has no rows` },
  ]);
}
