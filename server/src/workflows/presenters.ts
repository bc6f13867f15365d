import type { DataCollection, DataLocation, Workflow } from '@service/common';
import type {
  DataCollectionsTable,
  FilesTable,
  RunConfigurationsTable,
  RunsTable,
  WorkflowsTable,
} from '../db/tables.js';
import { storedTiming } from './timing-columns.js';

/**
 * Absolute server paths (data locations, run folders) are shown only to those who may edit the
 * project (`showPaths`); its readers, anonymous visitors of a public project included, see the
 * rest. Ingestion runs hide theirs the same way.
 */
export function presentWorkflow(row: WorkflowsTable, showPaths: boolean): Workflow {
  const location = row.data_location === null ? null : (JSON.parse(row.data_location) as DataLocation);
  return {
    workflow_id: row.id,
    project_id: row.project_id,
    name: row.name,
    engine: row.engine === null ? null : (JSON.parse(row.engine) as Workflow['engine']),
    data_location: location === null || showPaths ? location : withoutPaths(location),
    ...storedTiming(row),
    next_check_at: earliest(row.schedule_next_at, row.watch_next_at),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The earlier of two ISO times, either of which may be absent. */
function earliest(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

export function presentDataCollection(row: DataCollectionsTable, projectId: string): DataCollection {
  return {
    data_collection_id: row.id,
    workflow_id: row.workflow_id,
    project_id: projectId,
    tag: row.tag,
    type: row.type,
    pattern: row.pattern,
    format: row.format,
    read_options: JSON.parse(row.read_options) as Record<string, unknown>,
    keys: row.keys === null ? null : (JSON.parse(row.keys) as string[]),
    columns: JSON.parse(row.columns) as Record<string, string>,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentRunConfiguration(row: RunConfigurationsTable) {
  return {
    run_configuration_id: row.id,
    workflow_id: row.workflow_id,
    name: row.name,
    version: row.version,
    parameters: JSON.parse(row.parameters) as Record<string, unknown>,
    created_at: row.created_at,
  };
}

export function presentRun(row: RunsTable, showPaths: boolean) {
  return {
    run_id: row.id,
    workflow_id: row.workflow_id,
    tag: row.tag,
    ...(showPaths ? { location: row.location } : {}),
    status: row.status,
    run_configuration_id: row.run_configuration_id,
    started_at: row.started_at,
    finished_at: row.finished_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentFile(row: FilesTable) {
  return {
    file_id: row.id,
    run_id: row.run_id,
    path: row.path,
    size: row.size,
    sha256: row.sha256,
    modified_at: row.modified_at,
    content_type: row.content_type,
    origin: row.origin,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A data location without its paths: how the data is laid out, not where. */
export function withoutPaths({ locations: _paths, ...location }: DataLocation): Omit<DataLocation, 'locations'> {
  return location;
}
