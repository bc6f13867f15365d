import { editors, onProject, ownersJob, ownJob, type Row, reading, signedIn, type World } from './matrix-world.js';

/** A MultiQC collection (no report ingested yet) in P's workflow, made once per world. */
const multiqcCollections = new WeakMap<World, Promise<string>>();
function multiqcCollectionOf(world: World): Promise<string> {
  const known = multiqcCollections.get(world);
  if (known !== undefined) return known;
  const made = world.server.context.dataCollections.insert(world.p.workflowId, {
    tag: 'qc',
    type: 'multiqc',
    pattern: 'multiqc\\.parquet',
    format: 'parquet',
  });
  multiqcCollections.set(world, made);
  return made;
}

/** Jobs, upserts, files and reading a data collection's rows. */
export const dataRows: Record<string, Row> = {
  'GET /service/api/v1/jobs': { request: async () => ({ path: '/jobs' }), expected: signedIn(200) },
  'GET /service/api/v1/jobs/{id}': {
    request: async (w) => ({ path: `/jobs/${await ownersJob(w)}` }),
    expected: ownJob(200),
  },
  'POST /service/api/v1/jobs/{id}/cancel': {
    request: async (w) => ({ path: `/jobs/${await ownersJob(w)}/cancel` }),
    expected: ownJob(200),
  },
  // The live stream of a dashboard, read to its end with once=true: whoever reads the dashboard.
  'GET /service/api/v1/events': {
    request: async (w) => ({ path: `/events?dashboard_id=${w.p.dashboardId}&once=true` }),
    expected: reading,
  },
  'POST /service/api/v1/deltatables/upsert': {
    request: async (w) => ({
      path: '/deltatables/upsert',
      options: { json: { data_collection_id: w.p.dataCollectionId } },
    }),
    expected: onProject(200, editors),
  },
  'POST /service/api/v1/datacollections/{id}/files': {
    request: async (w) => {
      const form = new FormData();
      form.append('run', 'run_1');
      form.append('path', 'Biscoe/measures.csv');
      form.append('file', new Blob(['sample\nA1\n']), 'measures.csv');
      return { path: `/datacollections/${w.p.dataCollectionId}/files`, options: { form } };
    },
    expected: onProject(201, editors),
  },
  'GET /service/api/v1/files/{id}': {
    request: async (w) => ({ path: `/files/${w.p.fileId}` }),
    expected: reading,
  },
  'POST /service/api/v1/files/{id}/preview': {
    request: async (w) => ({ path: `/files/${w.p.fileId}/preview`, options: { json: {} } }),
    // Reading a file with DuckDB is for signed-in readers: anonymous visitors are asked to sign in.
    expected: (mode, actor) => (actor === 'anonymous' && mode !== 'single_user' ? 401 : reading(mode, actor)),
  },
  'POST /service/api/v1/projects/{id}/files/preview': {
    request: async (w) => {
      const form = new FormData();
      form.append('file', new Blob(['sample\nA1\n']), 'measures.csv');
      return { path: `/projects/${w.p.projectId}/files/preview`, options: { form } };
    },
    // Add data is for those who may add data: the project's editors.
    expected: onProject(200, editors),
  },
  'GET /service/api/v1/files/{id}/content': {
    request: async (w) => ({ path: `/files/${w.p.fileId}/content` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/schema': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/schema` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/preview': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/preview` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/multiqc': {
    request: async (w) => ({ path: `/datacollections/${await multiqcCollectionOf(w)}/multiqc` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/summary': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/summary` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/values/{column}': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/values/sample` }),
    expected: reading,
  },
  'POST /service/api/v1/datacollections/{id}/aggregate': {
    request: async (w) => ({
      path: `/datacollections/${w.p.dataCollectionId}/aggregate`,
      options: { json: { aggregates: [{ fn: 'count' }] } },
    }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/download': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/download?format=csv` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/versions': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/versions` }),
    expected: reading,
  },
  'GET /service/api/v1/datacollections/{id}/path-fit': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/path-fit?path=other.csv` }),
    // Asked before an upload, so only by those who may upload.
    expected: onProject(200, editors),
  },
  'GET /service/api/v1/datacollections/{id}/files': {
    request: async (w) => ({ path: `/datacollections/${w.p.dataCollectionId}/files` }),
    expected: reading,
  },
};
