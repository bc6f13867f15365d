import {
  BRUSH_FILTER_CHARTS,
  brushesGenome,
  CATEGORY_CLICK_CHARTS,
  CLICK_FILTER_CHARTS,
  type CollectionComponent,
  type DashboardComponent,
  type DashboardFilter,
  type DashboardFilterScalar,
  type FigureComponent,
  filterValueProblem,
  type InteractiveComponent,
  isHierarchySetChart,
  isMapChart,
  MULTIQC_SAMPLE_COLUMN,
  type MultiqcComponent,
  type RankedDistributionChart,
  rankedDistributionFilterColumn,
  readsCollection,
  sampleOfRead,
  type TableComponent,
} from '@service/common';
import type { DeltaScan } from '../../engine/delta/index.js';
import type { DuckDB } from '../../engine/duckdb.js';
import { quoteIdentifier } from '../../engine/sql.js';
import { selectionMatch } from '../components/table-extras.js';
import { type Column, invalid, type TableSnapshot } from '../sql/columns.js';
import { Statement } from '../sql/statement.js';
import { embeddingMatch } from './embedding-filters.js';
import { type Match, type MatchContext, matchSql, narrows, readsRows } from './filter-sql.js';
import { hierarchySetMatches } from './hierarchy-set-filters.js';
import { type FilterJoin, hopOf, semiJoin, shortestChains } from './join-chains.js';
import { mapMatch } from './map-filters.js';
import type { Narrowing } from './narrowing.js';

/** A request's filter, checked and tied to the column it constrains. */
interface BoundFilter {
  /** Where the filter sits in the request (`body.filters[2]`). */
  at: string;
  componentId: string;
  collection: string;
  column: string;
  match: Match;
  /** An embed token's: it narrows the component that names it too. */
  fixed: boolean;
}

/** How the filters reach one component. */
export interface ComponentNarrowing {
  narrowing: Narrowing;
  /**
   * The filters reaching the component, canonical (same filters in any order, same key): with
   * the table versions of `collections` it says whether a cached answer still holds.
   */
  key: string;
  /** Other collections whose rows the narrowing reads (joined ones), besides the component's own. */
  collections: string[];
}

export interface FilterPlanInput {
  /** The dashboard's components (filters may name any of them). */
  components: readonly DashboardComponent[];
  filters: readonly DashboardFilter[];
  /**
   * Filters an embed token fixes (at `token.filters`): on top of `filters`, and narrowing every
   * component, the one each names included, so no component shows more than the token's view.
   */
  fixed?: readonly DashboardFilter[];
  /** The project's joins. */
  joins: readonly FilterJoin[];
  /** The snapshot read of every collection the components read. */
  sources: ReadonlyMap<string, TableSnapshot>;
  /** Where the filters are in the request: `body.filters`, `querystring.filters`. */
  path: string;
}

/**
 * The dashboard's filters as one narrowing per component (docs/architecture.md "Dashboards"). A filter narrows
 * every component on its collection except the one that set it (a select keeps listing its other
 * options; a clicked chart stays whole), and components on a collection linked to its own by a
 * chain of the project's joins, in either direction, whatever their `how`: their rows whose keys
 * some row of the next collection has, and so on to a row matching the filter; along every
 * shortest chain at once (join-chains.ts). Every
 * filter is checked before any data is read: an unknown component, a second filter for one
 * component, a value of the wrong shape or not of its column's type → 400 at its place.
 */
export class FilterPlan {
  private constructor(
    private readonly input: FilterPlanInput,
    private readonly filters: readonly BoundFilter[],
  ) {}

  static async build(input: FilterPlanInput, duckdb: Pick<DuckDB, 'withConnection'>): Promise<FilterPlan> {
    const filters = [
      ...bindFilters(input, input.filters, input.path, false),
      ...bindFilters(input, input.fixed ?? [], 'token.filters', true),
    ];
    // Each filter's SQL against its own collection: what cannot convert is refused now, once.
    const statement = new Statement();
    for (const filter of filters) {
      const source = input.sources.get(filter.collection);
      if (source?.snapshot == null) continue;
      // Only the values are checked here: the rows an UpSet's items are found among are not read.
      matchSql(filter.match, filterColumn(source, filter), statement, filter.at, contextOf(source, filter, ''));
    }
    // Most requests have nothing to convert: no connection for them.
    if (statement.params.length > 0) await duckdb.withConnection((connection) => statement.validate(connection));
    const plan = new FilterPlan(input, filters);
    for (const component of input.components) {
      if (readsCollection(component)) plan.reachOf(component);
    }
    return plan;
  }

  /** The narrowing of a component that reads a collection. */
  of(component: CollectionComponent): ComponentNarrowing {
    const { own, joined } = this.reachOf(component);
    const key = JSON.stringify([
      own.map(canonical).sort(),
      joined.map(({ chains, filters }) => [
        chains.map((chain) => chain.map((hop) => [hop.collection, hop.ours, hop.theirs])),
        filters.map(canonical).sort(),
      ]),
    ]);
    const target = this.input.sources.get(component.data_collection_id);
    const narrowing: Narrowing = async (connection, statement) => {
      const conditions: string[] = [];
      const scans: DeltaScan[] = [];
      /** A scan of a collection's table, kept until the statement is done. */
      const scanOf = async (source: TableSnapshot & { snapshot: NonNullable<TableSnapshot['snapshot']> }) => {
        const scan = await source.table.scan(connection, source.snapshot, source.version?.columns);
        scans.push(scan);
        return { sql: `(${scan.sql})`, alias: quoteIdentifier(`dashboard_join_${scans.length}`) };
      };
      /** The rows of a collection for the matches that read them. */
      const rowsOf = async (source: TableSnapshot, filters: readonly BoundFilter[]) =>
        source.snapshot == null || !filters.some((filter) => readsRows(filter.match))
          ? ''
          : (await scanOf({ ...source, snapshot: source.snapshot })).sql;
      try {
        const ownRows = target === undefined ? '' : await rowsOf(target, own);
        for (const filter of own) {
          if (target?.snapshot == null) break;
          const context = contextOf(target, filter, ownRows);
          const sql = matchSql(filter.match, filterColumn(target, filter), statement, filter.at, context);
          if (sql !== null) conditions.push(sql);
        }
        for (const { collection, chains, filters } of joined) {
          const other = this.input.sources.get(collection);
          const tables = chains.map((chain) => chain.map((hop) => this.input.sources.get(hop.collection)));
          if (other?.snapshot == null || tables.some((chain) => chain.some((source) => source?.snapshot == null))) {
            // Nothing in a collection without a table matches a filter that narrows at all.
            if (filters.some((filter) => narrows(filter.match))) conditions.push('(FALSE)');
            continue;
          }
          const otherRows = await rowsOf(other, filters);
          const inner = filters.flatMap(
            (filter) =>
              matchSql(
                filter.match,
                filterColumn(other, filter),
                statement,
                filter.at,
                contextOf(other, filter, otherRows),
              ) ?? [],
          );
          if (inner.length === 0) continue;
          for (const [index, chain] of chains.entries()) {
            const sources = (tables[index] ?? []).flatMap((source) =>
              source?.snapshot == null ? [] : [{ ...source, snapshot: source.snapshot }],
            );
            conditions.push(await semiJoin(chain, inner, () => Promise.all(sources.map(scanOf))));
          }
        }
      } catch (error) {
        for (const scan of scans) scan.release();
        throw error;
      }
      return {
        conditions,
        release: () => {
          for (const scan of scans) scan.release();
        },
      };
    };
    const collections = joined.flatMap(({ chains }) => chains.flatMap((chain) => chain.map((hop) => hop.collection)));
    return { narrowing, key, collections: [...new Set(collections)].sort() };
  }

  /**
   * The filters reaching a component: on its collection, and through chains of joins, grouped by
   * collection. A filter on a collection no chain of joins links to the component's leaves it be.
   */
  private reachOf(component: CollectionComponent) {
    const collection = component.data_collection_id;
    const others = this.filters.filter((filter) => filter.fixed || filter.componentId !== component.component_id);
    const own = others.filter((filter) => filter.collection === collection);
    const byCollection = new Map<string, BoundFilter[]>();
    for (const filter of others) {
      if (filter.collection === collection) continue;
      byCollection.set(filter.collection, [...(byCollection.get(filter.collection) ?? []), filter]);
    }
    const joined = [...byCollection]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([other, filters]) => {
        const chains = shortestChains(this.input.joins, collection, other).map((chain) =>
          chain.map((step) => hopOf(step, this.input.sources, filters[0]!.at)),
        );
        return chains.length === 0 ? [] : [{ collection: other, chains, filters }];
      });
    return { own, joined };
  }
}

/** Each filter with its component, the column it constrains and what it asks. */
function bindFilters(
  { components, sources }: Pick<FilterPlanInput, 'components' | 'sources'>,
  filters: readonly DashboardFilter[],
  path: string,
  fixed: boolean,
): BoundFilter[] {
  const byId = new Map(components.map((component) => [component.component_id, component]));
  const seen = new Map<string, number>();
  return filters.flatMap((filter, index) => {
    const at = `${path}[${index}]`;
    const component = byId.get(filter.component_id);
    if (component === undefined) throw invalid(`${at}.component_id`, 'the dashboard has no component with this id');
    const previous = seen.get(filter.component_id);
    if (previous !== undefined) {
      // Two values for one component would be ambiguous: which one is the reader's?
      throw invalid(`${at}.component_id`, `${path}[${previous}] already filters by this component`);
    }
    seen.set(filter.component_id, index);
    const problem = filterValueProblem(component, filter.value);
    if (!filterer(component)) {
      throw invalid(`${at}.component_id`, problem ?? `a ${component.type} component cannot filter`);
    }
    if (problem !== null) throw invalid(`${at}.value`, problem);
    const { component_id: componentId, data_collection_id: collection } = component;
    // A node, flow or intersection constrains several columns at once: one bound filter each (all must hold).
    const matches =
      component.type === 'figure' && isHierarchySetChart(component.chart)
        ? hierarchySetMatches(component, filter.value)
        : component.type === 'table'
          ? [selectionMatch(component, sources.get(collection), filter, at)]
          : [matchOf(component, filter)];
    return matches.map(({ column, match }) => ({ at, componentId, collection, column, match, fixed }));
  });
}

/** Whether a component can set filters at all (the value may still have the wrong shape). */
function filterer(
  component: DashboardComponent,
): component is InteractiveComponent | FigureComponent | MultiqcComponent | TableComponent {
  if (component.type === 'interactive' || component.type === 'multiqc' || component.type === 'table') return true;
  return (
    component.type === 'figure' &&
    (CLICK_FILTER_CHARTS.includes(component.chart) ||
      brushesGenome(component) ||
      BRUSH_FILTER_CHARTS.includes(component.chart) ||
      isHierarchySetChart(component.chart) ||
      isMapChart(component.chart))
  );
}

type Scalar = DashboardFilterScalar | null;

/** The column a component filters and the match its value (already of the right shape) asks. */
function matchOf(
  component: InteractiveComponent | FigureComponent | MultiqcComponent,
  filter: DashboardFilter,
): { column: string; match: Match } {
  const { value } = filter;
  const list = (Array.isArray(value) ? value : []) as Scalar[];
  // A clicked sample of a MultiQC plot: that sample of its collection's general statistics, and
  // the sample its read or lane suffix belongs to (SRR1_1 → SRR1), which joined metadata names.
  if (component.type === 'multiqc') {
    return { column: MULTIQC_SAMPLE_COLUMN, match: { kind: 'in', values: withSampleOfReads(list) } };
  }
  if (component.type === 'interactive') {
    const column = component.column;
    switch (component.widget) {
      case 'select':
      case 'multiselect':
        return { column, match: { kind: 'in', values: list } };
      case 'range':
      case 'date_range':
        return { column, match: { kind: 'range', low: list[0] ?? null, high: list[1] ?? null } };
      case 'switch':
        return { column, match: { kind: 'equals', value: value === true } };
      case 'search':
        return { column, match: { kind: 'search', text: typeof value === 'string' ? value : '' } };
    }
  }
  if (component.chart === 'pie') return { column: component.color ?? '', match: { kind: 'in', values: list } };
  if (component.chart === 'bar') return { column: component.x ?? '', match: { kind: 'in', values: list } };
  // A clicked heatmap row: its label.
  if (component.chart === 'clustered_heatmap') {
    return { column: component.row ?? '', match: { kind: 'in', values: list } };
  }
  // A brushed genome (a Manhattan plot, a coverage track of contigs): from one chromosome and position to another.
  if (brushesGenome(component)) {
    const [fromName = null, fromAt = 0, toName = null, toAt = 0] = list;
    return {
      column: component.chromosome ?? '',
      match: {
        kind: 'interval',
        position: component.position ?? '',
        from: [fromName ?? '', Number(fromAt)],
        to: [toName ?? '', Number(toAt)],
      },
    };
  }
  // A brushed embedding: the ids of a PCA's points, or the rectangle of given coordinates.
  if (component.chart === 'embedding' && (component.pca_columns !== undefined || list.length > 2)) {
    return embeddingMatch(component, list);
  }
  if (isMapChart(component.chart)) return mapMatch(component, list);
  // A clicked oncoplot cell or gene bar: its gene.
  if (component.chart === 'oncoplot') return { column: component.y ?? '', match: { kind: 'in', values: list } };
  // A clicked clade: its tips' names.
  if (component.chart === 'tree') return { column: component.tip ?? '', match: { kind: 'in', values: list } };
  if (CATEGORY_CLICK_CHARTS.includes(component.chart as RankedDistributionChart)) {
    return { column: rankedDistributionFilterColumn(component) ?? '', match: { kind: 'in', values: list } };
  }
  // A coverage track is brushed along its positions.
  const column = component.chart === 'coverage' ? component.position : component.x;
  return { column: column ?? '', match: { kind: 'range', low: list[0] ?? null, high: list[1] ?? null } };
}

function withSampleOfReads(values: readonly Scalar[]): Scalar[] {
  const bases = values.flatMap((value) => {
    const sample = typeof value === 'string' ? sampleOfRead(value) : null;
    return sample === null ? [] : [sample];
  });
  return [...new Set([...values, ...bases])];
}

/** The filter's column in a collection's table, or a 400 when the table no longer has it. */
function filterColumn(source: TableSnapshot, filter: BoundFilter, name = filter.column): Column {
  const column = source.byName.get(name);
  if (column === undefined) {
    throw invalid(
      `${filter.at}.component_id`,
      `this component filters on ${JSON.stringify(name)}, which the table of its data collection no longer has`,
    );
  }
  return column;
}

/** What the filter's match reads of its table besides its column: other columns, and its rows (`rows`). */
const contextOf = (source: TableSnapshot, filter: BoundFilter, rows: string): MatchContext => ({
  column: (name) => filterColumn(source, filter, name),
  rows,
});

/** A filter as the cache sees it: what it constrains and how, not which component set it. */
function canonical(filter: BoundFilter): string {
  const { match } = filter;
  const value =
    match.kind === 'in' || match.kind === 'country'
      ? [...new Set(match.values.map((item) => JSON.stringify(item)))].sort()
      : match.kind === 'range'
        ? [match.low, match.high]
        : match.kind === 'equals' || match.kind === 'member'
          ? match.value
          : match.kind === 'interval'
            ? [match.position, match.from, match.to]
            : match.kind === 'exact_sets'
              ? [match.set, [...new Set(match.sets)].sort()]
              : match.kind === 'box'
                ? match.ranges
                : match.text;
  return JSON.stringify([filter.collection, filter.column, match.kind, value]);
}
