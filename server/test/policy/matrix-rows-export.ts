import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { editors, onProject, owners, type Row, readers, type World } from './matrix-world.js';

/** A token of P's dashboard, made straight in the database (who made it does not matter here). */
async function embedToken(world: World): Promise<string> {
  const id = uuidv7();
  const now = new Date().toISOString();
  await world.server.context.database.db
    .insertInto('embed_tokens')
    .values({
      id,
      dashboard_id: world.p.dashboardId,
      component_id: null,
      token_hash: randomBytes(32).toString('hex'),
      filters: '[]',
      as_of: null,
      created_by: null,
      created_at: now,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return id;
}

/** Embed tokens (the dashboard's owners and editors) and the export route (its readers). */
export const exportRows: Record<string, Row> = {
  'POST /service/api/v1/dashboards/{id}/embed_tokens': {
    request: async (w) => ({
      path: `/dashboards/${w.p.dashboardId}/embed_tokens`,
      options: { json: { component_id: 'table', expires_in_hours: 1 } },
    }),
    // Publishing: the project's sharers only (its editors manage but do not mint).
    expected: onProject(201, owners),
  },
  'GET /service/api/v1/dashboards/{id}/embed_tokens': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/embed_tokens` }),
    expected: onProject(200, editors),
  },
  'DELETE /service/api/v1/dashboards/{id}/embed_tokens/{embed_token_id}': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/embed_tokens/${await embedToken(w)}` }),
    expected: onProject(204, editors),
  },
  // Anonymous callers of a private dashboard are asked to sign in (or bring an embed token) in every mode.
  'GET /service/api/v1/export/components/{dashboard_id}/{component_id}': {
    request: async (w) => ({ path: `/export/components/${w.p.dashboardId}/table?format=spec` }),
    expected: (mode, actor) => {
      if (mode === 'single_user' || readers.includes(actor)) return 200;
      return actor === 'anonymous' ? 401 : 404;
    },
  },
  // The image routes (their full role matrix with real images: server/test/images/image-permissions.test.ts).
  // P's dashboard shows no gallery: its readers reach the component check (a table shows no images, 400);
  // the others never learn it exists (an anonymous caller is asked to sign in where signing in is the way).
  'GET /service/api/v1/dashboards/{id}/components/{component_id}/images/{image_id}': {
    request: async (w) => ({ path: `/dashboards/${w.p.dashboardId}/components/table/images/${w.p.fileId}` }),
    expected: (mode, actor) => {
      if (mode === 'single_user' || readers.includes(actor)) return 400;
      return actor === 'anonymous' && mode === 'auth' ? 401 : 404;
    },
  },
  'GET /service/api/v1/export/components/{dashboard_id}/{component_id}/images/{image_id}': {
    request: async (w) => ({ path: `/export/components/${w.p.dashboardId}/table/images/${w.p.fileId}` }),
    expected: (mode, actor) => {
      if (mode === 'single_user' || readers.includes(actor)) return 400;
      return actor === 'anonymous' && mode === 'auth' ? 401 : 404;
    },
  },
  // P's collection holds tables, not images: 404 to its readers too, 401 to anonymous callers.
  'GET /service/api/v1/datacollections/{id}/images/{image_id}': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/images/${w.p.fileId}` }),
    expected: (mode, actor) => (mode === 'auth' && actor === 'anonymous' ? 401 : 404),
  },
};
