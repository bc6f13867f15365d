import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { anyone, editors, onProject, owners, type Row, reading, signedIn } from './matrix-world.js';

/** Projects, their definitions, workflows, runs, data collections, joins and ingestion. */
export const projectRows: Record<string, Row> = {
  'GET /service/api/v1/projects': {
    request: async () => ({ path: '/projects' }),
    expected: (mode, actor) => (actor === 'anonymous' && mode === 'auth' ? 401 : 200),
  },
  'POST /service/api/v1/projects': {
    request: async () => ({ path: '/projects', options: { json: { name: `project-${randomUUID()}` } } }),
    expected: signedIn(201),
  },
  'GET /service/api/v1/projects/schema': { request: async () => ({ path: '/projects/schema' }), expected: anyone(200) },
  'POST /service/api/v1/projects/import': {
    request: async () => ({
      path: '/projects/import',
      options: { json: { yaml: `name: imported-${randomUUID()}\n` } },
    }),
    expected: signedIn(201),
  },
  // A dry run reads the folder (inside the allowed roots); temporary users declare no locations.
  'POST /service/api/v1/projects/from-template': {
    request: async (w) => {
      const folder = join(w.server.database.dataDir, 'imports', 'template-matrix');
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'embedding_pcoa.tsv'), 'sample_id\tdim_1\tdim_2\thabitat\nS1\t0.1\t0.2\tSoil\n');
      const json = { template_id: 'nf-core/ampliseq/2.16.0', name: 'from-template', location: folder, dry_run: true };
      return { path: '/projects/from-template', options: { json } };
    },
    expected: (mode, actor) => (actor === 'temporary' && mode !== 'single_user' ? 403 : signedIn(200)(mode, actor)),
  },
  // A template's rendered dashboards go into a project its editors may change.
  'PUT /service/api/v1/projects/{id}/template-dashboards': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/template-dashboards`,
      options: {
        json: {
          template_id: 'nf-core/matrix/1.0.0',
          dashboards: [
            {
              title: `generated-${randomUUID()}`,
              components: [{ component_id: 't', type: 'table', data_collection_id: w.p.dataCollectionId }],
            },
          ],
        },
      },
    }),
    expected: onProject(200, editors),
  },
  'POST /service/api/v1/projects/validate': {
    request: async () => ({ path: '/projects/validate', options: { json: { yaml: 'name: checked\n' } } }),
    expected: signedIn(200),
  },
  'GET /service/api/v1/projects/{id}': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}` }),
    expected: reading,
  },
  'GET /service/api/v1/projects/{id}/yaml': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/yaml` }),
    expected: reading,
  },
  'PATCH /service/api/v1/projects/{id}': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}`, options: { json: { description: randomUUID() } } }),
    expected: onProject(200, editors),
  },
  'PUT /service/api/v1/projects/{id}/permissions': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/permissions`,
      options: {
        json: {
          owners: ['owner@example.org'],
          editors: ['editor@example.org'],
          viewers: ['viewer@example.org'],
          is_public: false,
        },
      },
    }),
    expected: onProject(200, owners),
  },
  'GET /service/api/v1/projects/{id}/deletion-summary': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/deletion-summary` }),
    expected: onProject(200, owners),
  },
  'DELETE /service/api/v1/projects/{id}': {
    request: async (w) => ({ path: `/projects/${(await w.freshFixture()).projectId}` }),
    expected: onProject(204, owners),
  },
  'GET /service/api/v1/projects/{id}/workflows': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/workflows` }),
    expected: reading,
  },
  'POST /service/api/v1/projects/{id}/workflows': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/workflows`,
      options: { json: { name: `wf-${randomUUID()}` } },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/workflows/{id}': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}` }),
    expected: reading,
  },
  'PATCH /service/api/v1/workflows/{id}': {
    request: async (w) => ({
      path: `/workflows/${w.p.workflowId}`,
      options: { json: { engine: { name: 'nextflow' } } },
    }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/workflows/{id}': {
    request: async (w) => ({ path: `/workflows/${(await w.freshFixture()).workflowId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/workflows/{id}/run-configurations': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}/run-configurations` }),
    expected: reading,
  },
  'POST /service/api/v1/workflows/{id}/run-configurations': {
    request: async (w) => ({
      path: `/workflows/${w.p.workflowId}/run-configurations`,
      options: { json: { name: 'default', parameters: { depth: 3 } } },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/workflows/{id}/runs': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}/runs` }),
    expected: reading,
  },
  'GET /service/api/v1/runs/{id}': { request: async (w) => ({ path: `/runs/${w.p.runId}` }), expected: reading },
  'DELETE /service/api/v1/runs/{id}': {
    request: async (w) => ({ path: `/runs/${(await w.freshFixture()).runId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/workflows/{id}/datacollections': {
    request: async (w) => ({ path: `/workflows/${w.p.workflowId}/datacollections` }),
    expected: reading,
  },
  'POST /service/api/v1/workflows/{id}/datacollections': {
    request: async (w) => ({
      path: `/workflows/${w.p.workflowId}/datacollections`,
      options: { json: { tag: `dc-${randomUUID()}`, pattern: '.*\\.csv', format: 'csv' } },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/datacollections/{id}': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}` }),
    expected: reading,
  },
  'PATCH /service/api/v1/datacollections/{id}': {
    request: async (w) => ({
      path: `/datacollections/${w.p.dataCollectionId}`,
      options: { json: { columns: { a: 'A' } } },
    }),
    expected: onProject(200, editors),
  },
  'GET /service/api/v1/datacollections/{id}/deletion-summary': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/deletion-summary` }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/datacollections/{id}': {
    request: async (w) => ({ path: `/datacollections/${(await w.freshFixture()).dataCollectionId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/projects/{id}/joins': {
    request: async (w) => ({ path: `/projects/${w.p.projectId}/joins` }),
    expected: reading,
  },
  'POST /service/api/v1/projects/{id}/joins': {
    request: async (w) => ({
      path: `/projects/${w.p.projectId}/joins`,
      options: {
        json: {
          name: `j${randomUUID().slice(0, 8)}`,
          left: w.p.dataCollectionId,
          right: w.p.dataCollectionId,
          on: ['island'],
        },
      },
    }),
    expected: onProject(201, editors),
  },
  'DELETE /service/api/v1/joins/{id}': {
    request: async (w) => {
      const fixture = await w.freshFixture();
      const owner = w.server.context;
      const join = await owner.joins.create(
        {
          kind: 'user',
          userId: (await owner.users.repository.findByEmail('owner@example.org'))?.id ?? '',
          role: 'user',
          isTemporary: false,
          sessionId: null,
        },
        fixture.projectId,
        { name: 'j', left: fixture.dataCollectionId, right: fixture.dataCollectionId, on: ['island'], how: 'inner' },
      );
      return { path: `/joins/${join.join_id}` };
    },
    expected: onProject(204, editors),
  },
  'POST /service/api/v1/projects/ingestion/trigger/{project_id}': {
    request: async (w) => ({
      path: `/projects/ingestion/trigger/${(await w.freshFixture()).projectId}?overwrite=false`,
    }),
    expected: onProject(202, editors),
  },
  'GET /service/api/v1/projects/ingestion/trigger-status/{project_id}': {
    request: async (w) => ({ path: `/projects/ingestion/trigger-status/${w.p.projectId}` }),
    expected: reading,
  },
  'GET /service/api/v1/projects/ingestion-runs/{project_id}': {
    request: async (w) => ({ path: `/projects/ingestion-runs/${w.p.projectId}` }),
    expected: reading,
  },
  'POST /service/api/v1/projects/{id}/ingest': {
    request: async (w) => ({ path: `/projects/${(await w.freshFixture()).projectId}/ingest`, options: { json: {} } }),
    expected: onProject(200, editors),
  },
};
