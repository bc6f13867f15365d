import type {
  ComponentData,
  DashboardComponent,
  DashboardDataAnswer,
  DashboardDataRequest,
  DashboardFilter,
} from '@service/common';
import { filterValueProblem } from '@service/common';
import type { DataCollectionQueries, DataComponent, TableSnapshot } from '../../datacollections/queries.js';
import { componentError } from '../../datacollections/query/components.js';
import { everyRow, type Narrowing } from '../../datacollections/query/narrowing.js';
import type { DataCollectionsTable } from '../../db/tables.js';
import { DomainError, type FieldProblem } from '../../errors.js';
import type { Actor } from '../../policy/actor.js';
import type { DashboardRecord } from '../repository.js';
import { componentsOf, type DashboardsService } from '../service.js';
import { inCompletionOrder } from './concurrency.js';

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
}

/** One component's answer, or the domain failure that stopped it. */
export interface ComponentResult {
  component_id: string;
  data: ComponentData;
  /** Why `data` is an error, when a client mistake (a filter value of the wrong type) caused it. */
  failure?: DomainError;
}

/** An answer ready to be computed: the versions read, and the components as each finishes. */
export interface PreparedData {
  version: DashboardDataAnswer['version'];
  components(): AsyncGenerator<ComponentResult>;
}

/** Failures a component could not recover from, for the caller's log (the answer says only that it failed). */
export type FailureReport = (componentId: string, error: unknown) => void;

/**
 * `POST /dashboards/{id}/data` (ARCHITECTURE.md §11): every (or the named) non-text component's
 * data for a set of filters, from one snapshot per collection. Authorized like the rows route:
 * the dashboard's readers.
 */
export class DashboardDataService {
  constructor(
    private readonly dashboards: Pick<DashboardsService, 'access' | 'repository'>,
    private readonly queries: Pick<DataCollectionQueries, 'snapshotOf' | 'componentData'>,
  ) {}

  /** Checks access and the request, and reads the versions; computing happens as the answer is consumed. */
  async prepare(
    actor: Actor,
    dashboardId: string,
    request: DashboardDataRequest,
    report: FailureReport,
  ): Promise<PreparedData> {
    const { record } = await this.dashboards.access(actor, dashboardId, 'resource.read');
    const components = componentsOf(record);
    const wanted = chosen(components, request.components);
    checkFilters(components, request.filters);
    const collections = await this.dashboards.repository.collectionRowsOfProject(record.row.project_id, [
      ...new Set(wanted.map((component) => component.data_collection_id)),
    ]);
    const sources = await this.snapshots(collections, request);
    const plan: DataPlan = { record, components, filters: request.filters, sources };
    const version = Object.fromEntries(
      [...sources].map(([id, source]) => [id, source.snapshot?.version ?? null] as const),
    );
    const tasks = wanted.map((component) => () => this.settle(plan, component, report));
    return { version, components: () => inCompletionOrder(tasks, CONCURRENT_COMPONENTS) };
  }

  /** The whole answer at once (the JSON form); a client mistake found while computing is a 400. */
  async answer(prepared: PreparedData): Promise<DashboardDataAnswer> {
    const components: DashboardDataAnswer['components'] = {};
    for await (const result of prepared.components()) {
      if (result.failure?.code === 'validation_failed') throw result.failure;
      components[result.component_id] = result.data;
    }
    return { version: prepared.version, components };
  }

  /** The snapshot each collection is read at (time travel, `as_of`, chooses other versions here). */
  private async snapshots(
    collections: readonly DataCollectionsTable[],
    _request: DashboardDataRequest,
  ): Promise<Map<string, TableSnapshot>> {
    const read = await Promise.all(collections.map((row) => this.queries.snapshotOf(row)));
    return new Map(read.map((source) => [source.row.id, source]));
  }

  /** How the request's filters narrow one component (its own filter left out). */
  private narrowing(_plan: DataPlan, _component: DataComponent): Narrowing {
    return everyRow;
  }

  /** One component's data (the answer cache, keyed by versions, component and filters, wraps this). */
  private async compute(plan: DataPlan, component: DataComponent): Promise<ComponentData> {
    const source = plan.sources.get(component.data_collection_id);
    if (source === undefined) {
      return componentError(
        'unknown_collection',
        "the component's data collection no longer exists in the dashboard's project",
        'data_collection_id',
      );
    }
    return this.queries.componentData(source, component, this.narrowing(plan, component));
  }

  private async settle(plan: DataPlan, component: DataComponent, report: FailureReport): Promise<ComponentResult> {
    const id = component.component_id;
    try {
      return { component_id: id, data: await this.compute(plan, component) };
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

/** The components asked for (all but text when none are named); an unknown id is a 400. */
function chosen(components: readonly DashboardComponent[], ids: readonly string[] | undefined): DataComponent[] {
  const data = components.filter((component): component is DataComponent => component.type !== 'text');
  if (ids === undefined) return data;
  const known = new Set(components.map((component) => component.component_id));
  const problems: FieldProblem[] = ids.flatMap((id, index) =>
    known.has(id) ? [] : [{ path: `body.components[${index}]`, message: `the dashboard has no component ${id}` }],
  );
  if (problems.length > 0) throw new DomainError('validation_failed', 'unknown components', problems);
  const wanted = new Set(ids);
  return data.filter((component) => wanted.has(component.component_id));
}

/** Each filter names a component of the dashboard and has the shape that component filters by. */
function checkFilters(components: readonly DashboardComponent[], filters: readonly DashboardFilter[]): void {
  const byId = new Map(components.map((component) => [component.component_id, component]));
  const problems: FieldProblem[] = filters.flatMap((filter, index): FieldProblem[] => {
    const component = byId.get(filter.component_id);
    if (component === undefined) {
      return [
        {
          path: `body.filters[${index}].component_id`,
          message: `the dashboard has no component ${filter.component_id}`,
        },
      ];
    }
    const problem = filterValueProblem(component, filter.value);
    return problem === null ? [] : [{ path: `body.filters[${index}].value`, message: problem }];
  });
  if (problems.length > 0) throw new DomainError('validation_failed', 'invalid filters', problems);
}
