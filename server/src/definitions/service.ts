import { joinColumnPairs, joinColumnsOf, type ProjectDefinition } from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { stringify } from 'yaml';
import { type DataCollectionsService, dataCollectionColumns } from '../datacollections/service.js';
import type { Database } from '../db/database.js';
import type { Tables, WorkflowsTable } from '../db/tables.js';
import { isoNow } from '../db/time.js';
import { DomainError, notFound } from '../errors.js';
import type { Actor, UserActor } from '../policy/actor.js';
import { authorize, can } from '../policy/policy.js';
import { asSharedResource } from '../projects/repository.js';
import type { ProjectsService } from '../projects/service.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { decodeJoinColumns, encodeJoinColumns, joinRows } from '../tables/joins.js';
import { projectRows } from '../tables/projects.js';
import { workflowRows } from '../tables/workflows.js';
import { locationsAt, sameDataLocation } from '../workflows/location-guard.js';
import { withoutPaths } from '../workflows/presenters.js';
import { type WorkflowsService, workflowColumns } from '../workflows/service.js';
import { sameTiming, storedTiming, timingColumns } from '../workflows/timing-columns.js';
import type { ParsedDefinition } from './parser.js';
import { checkProjectDefinition, validateProjectDefinition } from './rules.js';

/**
 * Projects as YAML documents (docs/architecture.md "Ingestion"). Import creates the project or brings an
 * existing one (same name, same creator) in line with the file: workflows, data collections and
 * joins named in it are created or updated; ones it does not name are left alone, so a file never
 * deletes data. Importing the same file twice changes nothing.
 */
export class ProjectDefinitions {
  constructor(
    private readonly database: Database,
    private readonly allowedRoots: readonly string[],
    private readonly projects: ProjectsService,
    private readonly workflows: WorkflowsService,
    private readonly dataCollections: DataCollectionsService,
  ) {}

  validate(text: string): ProjectDefinition {
    return validateProjectDefinition(text, this.allowedRoots);
  }

  async import(actor: UserActor, text: string): Promise<{ project_id: string; created: boolean; changed: boolean }> {
    const { definition, locate } = checkProjectDefinition(text, this.allowedRoots);
    const existingId = await this.projects.findOwnByName(actor, definition);
    if (existingId === undefined) {
      authorize(actor, 'project.create');
      await this.authorizeLocations(actor, undefined, definition, locate);
      const projectId = await this.database.db.transaction().execute(async (trx) => {
        const id = await this.projects.create(
          actor,
          {
            name: definition.name,
            description: definition.description ?? '',
            is_public: definition.is_public ?? false,
          },
          trx,
        );
        await this.apply(id, definition, actor.userId, trx);
        return id;
      });
      return { project_id: projectId, created: true, changed: true };
    }

    const record = await this.projects.access(actor, existingId, 'resource.edit');
    if (definition.is_public !== undefined && definition.is_public !== (record.row.is_public === 1)) {
      authorize(actor, 'resource.share', asSharedResource(record));
    }
    await this.authorizeLocations(actor, existingId, definition, locate);
    const before = stringify(await this.definitionOf(existingId));
    await this.database.db.transaction().execute(async (trx) => {
      const changes = {
        ...(definition.description === undefined ? {} : { description: definition.description }),
        ...(definition.is_public === undefined ? {} : { is_public: definition.is_public ? 1 : 0 }),
      };
      if (Object.keys(changes).length > 0) await projectRows.update(trx, existingId, changes);
      await this.apply(existingId, definition, actor.userId, trx);
    });
    const changed = stringify(await this.definitionOf(existingId)) !== before;
    if (changed) await projectRows.update(this.database.db, existingId, { updated_at: isoNow() });
    return { project_id: existingId, created: false, changed };
  }

  /** The location rules for the locations the file adds or changes (unchanged ones are re-checked at scan). */
  private async authorizeLocations(
    actor: UserActor,
    projectId: string | undefined,
    definition: ProjectDefinition,
    locate: ParsedDefinition['locate'],
  ): Promise<void> {
    const stored = projectId === undefined ? [] : await workflowRows.locationsOfProject(this.database.db, projectId);
    const declared = definition.workflows.flatMap((workflow, w) => {
      const current = stored.find((row) => row.name === workflow.name);
      if (current && sameDataLocation(current.data_location, workflow.data_location)) return [];
      return locationsAt(workflow.data_location, `workflows[${w}].data_location`);
    });
    try {
      await this.workflows.locations.authorizeDeclared(actor, projectId, declared);
    } catch (error) {
      if (error instanceof DomainError && error.errors)
        throw new DomainError(error.code, error.message, locate(error.errors));
      throw error;
    }
  }

  /** Writes the definition; `declaredBy` declares the locations it adds or changes. */
  private async apply(
    projectId: string,
    definition: ProjectDefinition,
    declaredBy: string,
    trx: Kysely<Tables>,
  ): Promise<void> {
    const collectionIds = new Map<string, string>();
    for (const [w, workflow] of definition.workflows.entries()) {
      const existing = await workflowRows.findByName(trx, projectId, workflow.name);
      const { engine, data_location: dataLocation } = workflowColumns(workflow);
      let workflowId: string;
      if (existing) {
        workflowId = existing.id;
        // Only a new or changed location is declared anew (and authorized so in `authorizeLocations`).
        const declared = sameDataLocation(existing.data_location, workflow.data_location)
          ? {}
          : { locations_declared_by: dataLocation === null ? null : declaredBy };
        await workflowRows.updateIfChanged(trx, workflowId, { engine, data_location: dataLocation, ...declared });
        if (!sameTiming(existing, workflow))
          await workflowRows.update(trx, workflowId, timingColumns(workflow, declaredBy));
      } else {
        workflowId = await this.workflows.insert(projectId, workflow, declaredBy, trx);
      }
      for (const [c, collection] of workflow.data_collections.entries()) {
        const current = await dataCollectionRows.idByTag(trx, workflowId, collection.tag);
        if (current !== undefined) {
          await dataCollectionRows.updateIfChanged(trx, current, dataCollectionColumns(collection));
          collectionIds.set(collection.tag, current);
        } else {
          const id = await this.dataCollections.insert(
            workflowId,
            collection,
            trx,
            `workflows[${w}].data_collections[${c}]`,
          );
          collectionIds.set(collection.tag, id);
        }
      }
    }
    for (const join of definition.joins ?? []) {
      const values = {
        left_data_collection_id: collectionIds.get(join.left) as string,
        right_data_collection_id: collectionIds.get(join.right) as string,
        on_columns: encodeJoinColumns(joinColumnPairs(join)),
        how: join.how,
      };
      const current = await joinRows.idByName(trx, projectId, join.name);
      if (current !== undefined) await joinRows.update(trx, current, values);
      else await joinRows.insert(trx, { id: uuidv7(), project_id: projectId, name: join.name, ...values });
    }
  }

  /** The project as a definition document, the inverse of import. */
  async definitionOf(projectId: string): Promise<ProjectDefinition> {
    const db = this.database.db;
    const project = await projectRows.find(db, projectId);
    if (!project) throw notFound('project');
    const workflows = await workflowRows.ofProject(db, projectId);
    const collections = await dataCollectionRows.ofWorkflows(
      db,
      workflows.map((w) => w.id),
    );
    const joins = await joinRows.ofProject(db, projectId);
    const tagOf = new Map(collections.map((c) => [c.id, c.tag]));
    return {
      name: project.name,
      ...(project.description === '' ? {} : { description: project.description }),
      is_public: project.is_public === 1,
      workflows: workflows.map((workflow) => ({
        name: workflow.name,
        ...(workflow.engine ? { engine: JSON.parse(workflow.engine) } : {}),
        ...(workflow.data_location ? { data_location: JSON.parse(workflow.data_location) } : {}),
        ...definedTiming(workflow),
        data_collections: collections
          .filter((c) => c.workflow_id === workflow.id)
          .map((c) => {
            const readOptions = JSON.parse(c.read_options) as Record<string, unknown>;
            const columns = JSON.parse(c.columns) as Record<string, string>;
            return {
              tag: c.tag,
              type: c.type,
              pattern: c.pattern,
              format: c.format,
              ...(Object.keys(readOptions).length ? { read_options: readOptions } : {}),
              ...(c.keys ? { keys: JSON.parse(c.keys) as string[] } : {}),
              ...(Object.keys(columns).length ? { columns } : {}),
            };
          }),
      })),
      ...(joins.length
        ? {
            joins: joins.map((join) => ({
              name: join.name,
              left: tagOf.get(join.left_data_collection_id) ?? '',
              right: tagOf.get(join.right_data_collection_id) ?? '',
              ...joinColumnsOf(decodeJoinColumns(join.on_columns)),
              how: join.how,
            })),
          }
        : {}),
    };
  }

  /** The project.yaml; for its readers who may not edit it, without the data locations' server paths. */
  async export(actor: Actor, projectId: string): Promise<string> {
    const project = await this.projects.access(actor, projectId, 'resource.read');
    const definition = await this.definitionOf(projectId);
    if (can(actor, 'resource.edit', asSharedResource(project))) return stringify(definition, { lineWidth: 0 });
    const workflows = definition.workflows.map((workflow) =>
      workflow.data_location ? { ...workflow, data_location: withoutPaths(workflow.data_location) } : workflow,
    );
    return stringify({ ...definition, workflows }, { lineWidth: 0 });
  }
}

/** A workflow's schedule and watch as project.yaml writes them: only those it has. */
function definedTiming(workflow: WorkflowsTable) {
  const { schedule, watch } = storedTiming(workflow);
  return { ...(schedule ? { schedule } : {}), ...(watch ? { watch } : {}) };
}
