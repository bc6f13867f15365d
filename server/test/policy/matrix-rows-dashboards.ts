import { randomUUID } from 'node:crypto';
import { dashboardRows as dashboardTable } from '../../src/tables/dashboards.js';
import { anyone, editors, onProject, type Row, readers, reading, signedIn, type World } from './matrix-world.js';

/** Offers the dashboard's own content as a newly generated version (docs/templates.md "Re-running"). */
async function offerGenerated(w: World): Promise<void> {
  const { db } = w.server.context.database;
  const row = await dashboardTable.find(db, w.p.dashboardId);
  if (!row) throw new Error('the fixture dashboard is gone');
  const { title, description } = row;
  const [tabs, components, layout] = [row.tabs, row.components, row.layout].map((text) => JSON.parse(text));
  await dashboardTable.setGenerated(db, w.p.dashboardId, {
    generated_offer: JSON.stringify({ title, description, tabs, components, layout }),
    generated_offer_at: new Date().toISOString(),
    generated_offer_template: 'nf-core/matrix/1.0.0',
  });
}

/** Dashboards, their data and their versions. */
export const dashboardRows: Record<string, Row> = {
  'GET /service/api/v1/dashboards': {
    request: async (w) => ({ path: `/dashboards?project_id=${w.p.projectId}` }),
    expected: (mode, actor) => (actor === 'anonymous' && mode === 'auth' ? 401 : 200),
  },
  'POST /service/api/v1/dashboards': {
    request: async (w) => ({
      path: '/dashboards',
      options: {
        json: {
          project_id: w.p.projectId,
          title: `d-${randomUUID()}`,
          components: [{ component_id: 't', type: 'table', data_collection_id: w.p.dataCollectionId }],
        },
      },
    }),
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/dashboards/{id}': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}` }),
    expected: reading,
  },
  // The project's owners and editors manage its dashboards; its viewers read them.
  'PUT /service/api/v1/dashboards/{id}': {
    request: async (w) => ({
      path: `/dashboards/${w.p.dashboardId}`,
      options: {
        json: {
          title: `d-${randomUUID()}`,
          components: [
            { component_id: 'table', type: 'table', data_collection_id: w.p.dataCollectionId, page_size: 10 },
            { component_id: 'intro', type: 'text', markdown: randomUUID() },
          ],
        },
      },
    }),
    expected: onProject(200, editors),
  },
  // Any reader copies; anonymous callers must sign in first, whatever they may read.
  'POST /service/api/v1/dashboards/{id}/duplicate': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/duplicate`, options: { json: {} } }),
    expected: (mode, actor) =>
      actor === 'anonymous' && mode !== 'single_user' ? 401 : onProject(201, readers)(mode, actor),
  },
  'GET /service/api/v1/dashboards/{id}/yaml': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/yaml` }),
    expected: reading,
  },
  // Editors of the project import into it; anonymous callers must sign in whatever they may read.
  'POST /service/api/v1/dashboards/import': {
    request: async (w) => ({
      path: `/dashboards/import?project_id=${w.p.projectId}`,
      options: { json: { yaml: `title: imported-${randomUUID()}\n` } },
    }),
    expected: (mode, actor) =>
      actor === 'anonymous' && mode !== 'single_user' ? 401 : onProject(201, editors)(mode, actor),
  },
  'GET /service/api/v1/dashboards/schema': {
    request: async () => ({ path: '/dashboards/schema' }),
    expected: anyone(200),
  },
  // Templates are no one's data: any signed-in user (a temporary one too) lists and reads them.
  'GET /service/api/v1/templates': { request: async () => ({ path: '/templates' }), expected: signedIn(200) },
  'GET /service/api/v1/templates/schema': {
    request: async () => ({ path: '/templates/schema' }),
    expected: anyone(200),
  },
  'GET /service/api/v1/templates/{*}': {
    request: async () => ({ path: '/templates/nf-core/ampliseq/2.16.0' }),
    expected: signedIn(200),
  },
  'PUT /service/api/v1/dashboards/{id}/permissions': {
    request: async (w) => ({
      path: `/dashboards/${w.p.dashboardId}/permissions`,
      options: { json: { owners: ['owner@example.org'], is_public: false } },
    }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/dashboards/{id}': {
    request: async (w) => ({ path: `/dashboards/${(await w.freshFixture()).dashboardId}` }),
    expected: onProject(204, editors),
  },
  'GET /service/api/v1/dashboards/{id}/versions': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/versions` }),
    expected: reading,
  },
  'GET /service/api/v1/dashboards/{id}/components/{component_id}/rows': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/components/table/rows?limit=5&sort=sample:desc` }),
    expected: reading,
  },
  'GET /service/api/v1/dashboards/{id}/components/{component_id}/download': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/components/table/download?sort=sample:desc` }),
    expected: reading,
  },
  'POST /service/api/v1/dashboards/{id}/data': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/data`, options: { json: {} } }),
    expected: reading,
  },
  'GET /service/api/v1/dashboards/{id}/colors': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/colors` }),
    expected: reading,
  },
  // History: its editors and owners (viewers see the dashboard as published now).
  'GET /service/api/v1/dashboards/{id}/revisions': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/revisions` }),
    expected: onProject(200, editors),
  },
  'GET /service/api/v1/dashboards/{id}/revisions/{revision}': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/revisions/1` }),
    expected: onProject(200, editors),
  },
  'POST /service/api/v1/dashboards/{id}/revisions/{revision}/restore': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/revisions/1/restore` }),
    expected: onProject(200, editors),
  },
  // A generated version on offer: its editors look at it, apply it or dismiss it.
  'GET /service/api/v1/dashboards/{id}/generated': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/generated` }),
    expected: onProject(200, editors),
  },
  'POST /service/api/v1/dashboards/{id}/generated/apply': {
    request: async (w) => {
      await offerGenerated(w);
      return { path: `/dashboards/${w.p.dashboardId}/generated/apply` };
    },
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/dashboards/{id}/generated/offer': {
    request: async (w) => {
      await offerGenerated(w);
      return { path: `/dashboards/${w.p.dashboardId}/generated/offer` };
    },
    expected: onProject(204, editors),
  },
};
