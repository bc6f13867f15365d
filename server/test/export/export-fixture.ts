import type { DashboardComponentInput } from '@service/common';
import { call, type Session, type TestServer } from '../../../test/support/test-server.js';
import { PENGUINS, projectWithTable, serverWithPeople } from '../dashboards/analytics-table.js';
import { CONTIGS_CSV, COVERAGE } from '../dashboards/contig-table.js';

/** A title and a text that try to end the page's script and run their own. */
export const HOSTILE = '</script><script>alert(1)</script><!--';

/**
 * The dashboard the export tests read, over the 120 penguins of analytics-table.ts: a bar chart of
 * species (3 bars: Adelie 60, Gentoo 40, Chinstrap 20), a histogram of mass, a card (mean mass),
 * a table, a text, and two select widgets. Ada owns it, Bob edits it, Carol views it, Dave is a
 * stranger.
 */
export function exportComponents(collectionId: string): DashboardComponentInput[] {
  return [
    {
      component_id: 'bars',
      type: 'figure',
      title: `Species ${HOSTILE}`,
      data_collection_id: collectionId,
      chart: 'bar',
      x: 'species',
    },
    {
      component_id: 'hist',
      type: 'figure',
      title: 'Mass',
      data_collection_id: collectionId,
      chart: 'histogram',
      x: 'mass',
      bins: 12,
    },
    {
      component_id: 'mass',
      type: 'card',
      title: 'Mean mass',
      data_collection_id: collectionId,
      column: 'mass',
      agg: 'mean',
    },
    {
      component_id: 'rows',
      type: 'table',
      title: 'Samples',
      data_collection_id: collectionId,
      columns: ['sample', 'species', 'mass'],
      page_size: 5,
      sort: [{ column: 'sample', direction: 'asc' }],
    },
    {
      component_id: 'intro',
      type: 'text',
      title: HOSTILE,
      markdown: `# About\n\nSee ${HOSTILE} and **[the site](https://example.org)**.`,
    },
    {
      component_id: 'species',
      type: 'interactive',
      data_collection_id: collectionId,
      widget: 'select',
      column: 'species',
    },
    {
      component_id: 'island',
      type: 'interactive',
      data_collection_id: collectionId,
      widget: 'select',
      column: 'island',
    },
  ];
}

export interface ExportWorld {
  server: TestServer;
  ada: Session;
  bob: Session;
  carol: Session;
  dave: Session;
  projectId: string;
  collectionId: string;
  dashboardId: string;
  /** A second dashboard of Ada's, for tokens used on the wrong dashboard. */
  otherDashboardId: string;
}

export async function exportWorld(
  dialect: 'sqlite' | 'postgres',
  env: Record<string, string> = {},
): Promise<ExportWorld> {
  const { server, session } = await serverWithPeople(dialect, env);
  const [ada, bob, carol, dave] = (await Promise.all(
    ['ada', 'bob', 'carol', 'dave'].map((name) => session(`${name}@example.org`)),
  )) as [Session, Session, Session, Session];
  const project = await projectWithTable(server, ada.access_token, 'penguins', PENGUINS);
  const create = async (title: string) => {
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: { project_id: project.projectId, title, components: exportComponents(project.collectionId) },
    });
    if (created.status !== 201) throw new Error(created.text);
    const shared = await call(server, 'PUT', `/dashboards/${created.body.dashboard_id}/permissions`, {
      token: ada.access_token,
      json: {
        owners: ['ada@example.org'],
        editors: ['bob@example.org'],
        viewers: ['carol@example.org'],
        is_public: false,
      },
    });
    if (shared.status !== 200) throw new Error(shared.text);
    return created.body.dashboard_id;
  };
  return {
    server,
    ada,
    bob,
    carol,
    dave,
    projectId: project.projectId,
    collectionId: project.collectionId,
    dashboardId: await create('Penguins'),
    otherDashboardId: await create('Penguins again'),
  };
}

/** The export route's path (under the API prefix) with its query. */
export function exportPath(dashboardId: string, componentId: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `/export/components/${dashboardId}/${componentId}${search ? `?${search}` : ''}`;
}

export interface Created {
  embed_token_id: string;
  token: string;
  url: string;
  html_url: string;
  expires_at: string;
}

export async function createToken(
  world: ExportWorld,
  body: Record<string, unknown>,
  dashboardId = world.dashboardId,
): Promise<Created> {
  const created = await call<Created>(world.server, 'POST', `/dashboards/${dashboardId}/embed_tokens`, {
    token: world.ada.access_token,
    json: body,
  });
  if (created.status !== 201) throw new Error(created.text);
  return created.body;
}

/** A dashboard "Depth" of ada's, one coverage track (`c`) over the contig table; answers its id. */
export async function coverageDashboard(world: ExportWorld): Promise<string> {
  const contigs = await projectWithTable(world.server, world.ada.access_token, 'contigs', CONTIGS_CSV);
  const created = await call<{ dashboard_id: string }>(world.server, 'POST', '/dashboards', {
    token: world.ada.access_token,
    json: {
      project_id: contigs.projectId,
      title: 'Depth',
      components: [{ ...COVERAGE, data_collection_id: contigs.collectionId }],
    },
  });
  if (created.status !== 201) throw new Error(`the coverage dashboard was not made: ${created.status} ${created.text}`);
  return created.body.dashboard_id;
}
