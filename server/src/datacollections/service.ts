import type { CollectionType, DataCollectionDeletionSummary, DataFormat, PathFit } from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { type AuditLog, actorUserId } from '../audit/service.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { paginate } from '../db/paginate.js';
import type { DataCollectionsTable, Tables, WorkflowsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import { compilePattern } from '../locations/patterns.js';
import { assertRelativePath } from '../locations/relative-path.js';
import type { StoragePurger } from '../maintenance/owned-storage.js';
import type { Actor } from '../policy/actor.js';
import type { ResourceAction } from '../policy/policy.js';
import { dashboardRows } from '../tables/dashboards.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { fileRows } from '../tables/files.js';
import { presentDataCollection, presentFile } from '../workflows/presenters.js';
import type { WorkflowsService } from '../workflows/service.js';
import { pathFit } from './path-fit.js';

export interface DataCollectionInput {
  tag: string;
  /** `table` when absent. */
  type?: CollectionType | undefined;
  pattern: string;
  format: DataFormat;
  read_options?: Record<string, unknown> | undefined;
  keys?: string[] | null | undefined;
  columns?: Record<string, string> | undefined;
}

/** How a data collection's definition is stored: options, keys and descriptions as JSON text. */
export function dataCollectionColumns(input: Omit<DataCollectionInput, 'tag'>) {
  return {
    type: input.type ?? 'table',
    pattern: input.pattern,
    format: input.format,
    read_options: JSON.stringify(input.read_options ?? {}),
    keys: input.keys ? JSON.stringify(input.keys) : null,
    columns: JSON.stringify(input.columns ?? {}),
  };
}

const tagTaken = () => new DomainError('name_taken', 'the workflow already has a data collection with this tag');

/** Data collections: the tables made from files that share one structure. */
export class DataCollectionsService {
  constructor(
    private readonly database: Database,
    private readonly workflows: WorkflowsService,
    private readonly purger: StoragePurger,
    private readonly audit: AuditLog,
  ) {}

  /** Loads a data collection with its workflow and checks `action` on the project. */
  async access(
    actor: Actor,
    dataCollectionId: string,
    action: ResourceAction,
  ): Promise<{ row: DataCollectionsTable; workflow: WorkflowsTable }> {
    const row = await dataCollectionRows.find(this.database.db, dataCollectionId);
    if (!row) throw notFound('data collection');
    const workflow = await this.workflows.access(actor, row.workflow_id, action);
    return { row, workflow };
  }

  async list(actor: Actor, workflowId: string, query: { limit: number; skip: number }) {
    const workflow = await this.workflows.access(actor, workflowId, 'resource.read');
    return paginate(
      dataCollectionRows.ofWorkflowFiltered(this.database.db, workflowId),
      (rows) => rows.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
      query,
      (row) => presentDataCollection(row, workflow.project_id),
    );
  }

  async insert(
    workflowId: string,
    input: DataCollectionInput,
    db: Kysely<Tables> = this.database.db,
    pathPrefix = 'body',
  ) {
    compilePattern(input.pattern, `${pathPrefix}.pattern`);
    const id = uuidv7();
    const now = isoNow();
    try {
      await dataCollectionRows.insert(db, {
        id,
        workflow_id: workflowId,
        tag: input.tag,
        ...dataCollectionColumns(input),
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw tagTaken();
      throw error;
    }
    return id;
  }

  async create(actor: Actor, workflowId: string, input: DataCollectionInput) {
    const workflow = await this.workflows.access(actor, workflowId, 'resource.edit');
    const id = await this.database.db.transaction().execute(async (trx) => {
      const inserted = await this.insert(workflowId, input, trx);
      const details = { data_collection_id: inserted, tag: input.tag, project_id: workflow.project_id };
      await this.audit.record({ type: 'collection.created', actorUserId: actorUserId(actor), details }, trx);
      return inserted;
    });
    return this.get(actor, id);
  }

  async get(actor: Actor, dataCollectionId: string) {
    const { row, workflow } = await this.access(actor, dataCollectionId, 'resource.read');
    return presentDataCollection(row, workflow.project_id);
  }

  async update(actor: Actor, dataCollectionId: string, changes: Partial<DataCollectionInput>) {
    const { row, workflow } = await this.access(actor, dataCollectionId, 'resource.edit');
    if (changes.pattern !== undefined) compilePattern(changes.pattern);
    try {
      await this.database.db.transaction().execute(async (trx) => {
        await dataCollectionRows.update(trx, dataCollectionId, {
          ...(changes.tag === undefined ? {} : { tag: changes.tag }),
          ...(changes.pattern === undefined ? {} : { pattern: changes.pattern }),
          ...(changes.format === undefined ? {} : { format: changes.format }),
          ...(changes.read_options === undefined ? {} : { read_options: JSON.stringify(changes.read_options) }),
          ...(changes.keys === undefined ? {} : { keys: changes.keys ? JSON.stringify(changes.keys) : null }),
          ...(changes.columns === undefined ? {} : { columns: JSON.stringify(changes.columns) }),
          updated_at: isoNow(),
        });
        const details = {
          data_collection_id: dataCollectionId,
          tag: changes.tag ?? row.tag,
          project_id: workflow.project_id,
          changed: Object.keys(changes),
        };
        await this.audit.record({ type: 'collection.updated', actorUserId: actorUserId(actor), details }, trx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw tagTaken();
      throw error;
    }
    return this.get(actor, dataCollectionId);
  }

  async delete(actor: Actor, dataCollectionId: string): Promise<void> {
    const { row, workflow } = await this.access(actor, dataCollectionId, 'resource.edit');
    await this.database.db.transaction().execute(async (trx) => {
      await dataCollectionRows.delete(trx, dataCollectionId);
      const details = { data_collection_id: dataCollectionId, tag: row.tag, project_id: workflow.project_id };
      await this.audit.record({ type: 'collection.deleted', actorUserId: actorUserId(actor), details }, trx);
    });
    // Its table, now that no row names it (the uploads belong to the workflow's runs and stay).
    await this.purger.purge({ uploadKeys: [], tableIds: [dataCollectionId] });
  }

  /** What deleting the collection affects: its files (which stay) and the dashboards that show it. */
  async deletionSummary(actor: Actor, dataCollectionId: string): Promise<DataCollectionDeletionSummary> {
    const { row, workflow } = await this.access(actor, dataCollectionId, 'resource.edit');
    const dashboards = await dashboardRows.ofProjectWithComponents(this.database.db, workflow.project_id);
    const showing = dashboards.filter((dashboard) =>
      (JSON.parse(dashboard.components) as { data_collection_id?: string }[]).some(
        (component) => component.data_collection_id === dataCollectionId,
      ),
    );
    return {
      files: (await this.matchingFiles(row)).length,
      dashboards: showing.map((dashboard) => ({ dashboard_id: dashboard.id, title: dashboard.title })),
    };
  }

  /** Registered files of the workflow's runs whose path matches the collection's pattern. */
  async files(actor: Actor, dataCollectionId: string, query: { limit: number; skip: number }) {
    const { row } = await this.access(actor, dataCollectionId, 'resource.read');
    const matching = await this.matchingFiles(row);
    return {
      items: matching.slice(query.skip, query.skip + query.limit).map(presentFile),
      total: matching.length,
      limit: query.limit,
      skip: query.skip,
    };
  }

  /** Whether an upload's path fits the collection's pattern, and how to make it fit (editors: it is asked before an upload). */
  async pathFit(actor: Actor, dataCollectionId: string, path: string): Promise<PathFit> {
    const { row } = await this.access(actor, dataCollectionId, 'resource.edit');
    assertRelativePath(path, 'querystring.path');
    return this.fitOf(row, path);
  }

  /** `pathFit` for a collection already loaded and checked. */
  async fitOf(row: DataCollectionsTable, path: string): Promise<PathFit> {
    const known = (await this.matchingFiles(row)).slice(0, 50).map((file) => file.path);
    return pathFit(row, path, known);
  }

  /** Every file of the collection, newest first (the pattern is a regex, so matching happens here). */
  async matchingFiles(row: DataCollectionsTable) {
    const pattern = compilePattern(row.pattern);
    const files = await fileRows.ofWorkflow(this.database.db, row.workflow_id);
    return files.filter((file) => pattern.test(file.path));
  }
}
