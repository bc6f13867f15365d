import { type JoinColumns, joinColumnPairs, joinColumnsOf } from '@service/common';
import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { paginate } from '../db/paginate.js';
import type { JoinsTable, Tables } from '../db/tables.js';
import { DomainError, notFound } from '../errors.js';
import type { Actor } from '../policy/actor.js';
import { dataCollectionRows } from '../tables/data-collections.js';
import { decodeJoinColumns, encodeJoinColumns, joinRows } from '../tables/joins.js';
import type { ProjectsService } from './service.js';

function presentJoin(row: JoinsTable) {
  return {
    join_id: row.id,
    project_id: row.project_id,
    name: row.name,
    left: row.left_data_collection_id,
    right: row.right_data_collection_id,
    ...joinColumnsOf(decodeJoinColumns(row.on_columns)),
    how: row.how,
  };
}

/** Joins between two data collections of one project, which dashboards filter through. */
export class JoinsService {
  constructor(
    private readonly database: Database,
    private readonly projects: ProjectsService,
  ) {}

  async list(actor: Actor, projectId: string, query: { limit: number; skip: number }) {
    await this.projects.access(actor, projectId, 'resource.read');
    return paginate(
      joinRows.ofProjectFiltered(this.database.db, projectId),
      (rows) => rows.selectAll().orderBy('name'),
      query,
      presentJoin,
    );
  }

  async create(
    actor: Actor,
    projectId: string,
    input: { name: string; left: string; right: string; how: JoinsTable['how'] } & JoinColumns,
  ) {
    await this.projects.access(actor, projectId, 'resource.edit');
    await this.assertInProject(this.database.db, projectId, [
      ['body.left', input.left],
      ['body.right', input.right],
    ]);
    const row: JoinsTable = {
      id: uuidv7(),
      project_id: projectId,
      name: input.name,
      left_data_collection_id: input.left,
      right_data_collection_id: input.right,
      on_columns: encodeJoinColumns(joinColumnPairs(input)),
      how: input.how,
    };
    try {
      await joinRows.insert(this.database.db, row);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new DomainError('name_taken', 'the project already has a join with this name');
      throw error;
    }
    return presentJoin(row);
  }

  async delete(actor: Actor, joinId: string): Promise<void> {
    const row = await joinRows.find(this.database.db, joinId);
    if (!row) throw notFound('join');
    await this.projects.access(actor, row.project_id, 'resource.edit');
    await joinRows.delete(this.database.db, joinId);
  }

  private async assertInProject(db: Kysely<Tables>, projectId: string, ids: [string, string][]) {
    const problems: { path: string; message: string }[] = [];
    for (const [path, id] of ids) {
      const [found] = await dataCollectionRows.someOfProject(db, projectId, [id]);
      if (!found) problems.push({ path, message: 'no data collection with this id in the project' });
    }
    if (problems.length > 0)
      throw new DomainError('validation_failed', 'a join links two collections of its project', problems);
  }
}
