import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CreateDashboardRequest, createDashboardRequestSchema } from '@service/common';
import type { Config } from '../config/config.js';
import type { DashboardsService } from '../dashboards/service.js';
import type { DataCollectionsService } from '../datacollections/service.js';
import type { ProjectDefinitions } from '../definitions/service.js';
import type { UpsertService } from '../deltatables/upsert.js';
import type { FilesService } from '../files/service.js';
import { compilePattern } from '../locations/patterns.js';
import type { UserActor } from '../policy/actor.js';
import type { UsersService } from '../users/service.js';
import type { WorkflowsService } from '../workflows/service.js';

/** The example project shipped with the repository (examples/penguins). */
export const EXAMPLE_FOLDER = fileURLToPath(new URL('../../../examples/penguins', import.meta.url));
const EXAMPLES_EMAIL = 'examples@localhost.invalid';

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/** What loading the example uses: the services a user would go through to do the same. */
export interface SeedDeps {
  config: { auth: Pick<Config['auth'], 'bootstrapAdmin'> };
  users: Pick<UsersService, 'repository' | 'createAccount'>;
  definitions: Pick<ProjectDefinitions, 'import'>;
  workflows: Pick<WorkflowsService, 'list'>;
  dataCollections: Pick<DataCollectionsService, 'list'>;
  files: Pick<FilesService, 'upload'>;
  upserts: Pick<UpsertService, 'upsert'>;
  dashboards: Pick<DashboardsService, 'create'>;
}

/**
 * The example's dashboards: `dashboard.json` first, then each `dashboard-<name>.json` in name order
 * (none when there is no such file). The files name collections by tag, since their ids are only
 * known once the project exists.
 */
export async function exampleDashboards(
  folder: string,
  projectId: string,
  collectionIds: ReadonlyMap<string, string>,
): Promise<CreateDashboardRequest[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).filter((name) => /^dashboard(-[\w-]+)?\.json$/.test(name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const ordered = names.sort((a, b) => (a === 'dashboard.json' ? -1 : b === 'dashboard.json' ? 1 : a.localeCompare(b)));
  const dashboards: CreateDashboardRequest[] = [];
  for (const name of ordered) {
    dashboards.push(exampleDashboard(name, await readFile(join(folder, name), 'utf8'), projectId, collectionIds));
  }
  return dashboards;
}

/** One example dashboard file's content, its collection tags replaced by the collections' ids. */
function exampleDashboard(
  fileName: string,
  text: string,
  projectId: string,
  collectionIds: ReadonlyMap<string, string>,
): CreateDashboardRequest {
  const definition = JSON.parse(text) as { components?: { data_collection_id?: string }[] };
  const components = (definition.components ?? []).map((component) => {
    const tag = component.data_collection_id;
    if (tag === undefined) return component;
    const id = collectionIds.get(tag);
    if (id === undefined) throw new Error(`${fileName} names the collection "${tag}", which the project lacks`);
    return { ...component, data_collection_id: id };
  });
  return createDashboardRequestSchema.parse({ ...definition, components, project_id: projectId });
}

/** Uploads the files of one run folder to the collections whose pattern they match. */
async function uploadRun(
  actor: UserActor,
  files: SeedDeps['files'],
  collections: readonly { data_collection_id: string; pattern: string }[],
  runFolder: string,
  runTag: string,
): Promise<void> {
  for await (const file of walk(runFolder)) {
    const path = relative(runFolder, file).split(sep).join('/');
    const collection = collections.find((candidate) => compilePattern(candidate.pattern).test(path));
    if (!collection) continue;
    await files.upload(actor, collection.data_collection_id, { runTag, path, content: createReadStream(file) });
  }
}

/**
 * Loads the example project (public, so every signed-in user can look at it) the first time:
 * imports its project.yaml, uploads its run folders and builds its tables one run after the other, and creates its dashboards. Owned by the bootstrap
 * admin when there is one, otherwise by a password-less examples account nobody signs in as.
 */
export async function seedExampleData(context: SeedDeps, folder = EXAMPLE_FOLDER): Promise<'created' | 'exists'> {
  const { users, definitions, dataCollections, files, upserts } = context;
  const ownerEmail = context.config.auth.bootstrapAdmin?.email ?? EXAMPLES_EMAIL;
  let owner = await users.repository.findByEmail(ownerEmail);
  owner ??= await users.createAccount({ email: ownerEmail, password: null, role: 'user' }, { via: 'cli' });
  const actor: UserActor = { kind: 'user', userId: owner.id, role: owner.role, isTemporary: false, sessionId: null };

  const text = await readFile(join(folder, 'project.yaml'), 'utf8');
  const { project_id: projectId, created } = await definitions.import(actor, text);
  if (!created) return 'exists';

  const workflows = await context.workflows.list(actor, projectId, { limit: 200, skip: 0 });
  const collections = (
    await Promise.all(
      workflows.items.map((workflow) => dataCollections.list(actor, workflow.workflow_id, { limit: 200, skip: 0 })),
    )
  )
    .flatMap((page) => page.items)
    // Built in order of their tags, so the example's measurements have a version before its sites.
    .sort((a, b) => a.tag.localeCompare(b.tag));
  // One run at a time, its tables built before the next arrives: the tables get one version per
  // run, so the example shows time travel (and, before the first run's sites table was built,
  // a moment when the measurements existed and the sites did not yet).
  const runs = (await readdir(folder, { withFileTypes: true })).filter((entry) => entry.isDirectory());
  for (const run of runs.map((entry) => entry.name).sort()) {
    await uploadRun(actor, files, collections, join(folder, run), run);
    for (const collection of collections)
      await upserts.upsert(actor, { data_collection_id: collection.data_collection_id });
  }
  const ids = new Map(collections.map((collection) => [collection.tag, collection.data_collection_id]));
  for (const dashboard of await exampleDashboards(folder, projectId, ids))
    await context.dashboards.create(actor, dashboard);
  return 'created';
}
