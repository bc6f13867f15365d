import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  ADMIN,
  call,
  createProjectWithUpload,
  createUser,
  describeEachDialect,
  login,
  type Session,
  startTestServer,
  type TestServer,
} from '../../../test/support/test-server.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

/**
 * `PUT /projects/{id}/template-dashboards` and a dashboard's generated version on offer
 * (docs/templates.md "Re-running"): a template's dashboards are made once, updated in place while
 * no one edits them, and never overwritten once someone has: the new version is offered instead.
 */

interface Applied {
  items: { dashboard_id: string; title: string; outcome: string }[];
  left_out: string[];
}
interface Generated {
  generated_from: string | null;
  edited: boolean;
  offer: null | {
    template_id: string;
    offered_at: string;
    title: string;
    components: { component_id: string }[];
    changes: { components_added: string[]; title_changed: boolean };
  };
}
interface DashboardAnswer {
  dashboard_id: string;
  title: string;
  components: { component_id: string; title?: string }[];
  layout: unknown[];
  tabs: unknown[];
  description: string;
}

describeEachDialect("a template's dashboards applied again and again", (dialect) => {
  let server: TestServer;
  let ada: Session;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await login(server, ADMIN.email, ADMIN.password);
    ada = await createUser(server, admin.access_token, 'ada@example.org');
    ({ projectId } = await createProjectWithUpload(server, ada.access_token, 'pipeline results'));
    const ingested = await call(server, 'POST', `/projects/${projectId}/ingest`, {
      token: ada.access_token,
      json: { source: 'cli', async_mode: false },
    });
    expect(ingested.status, ingested.text).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
    await server?.database.drop();
  });

  const table = (id: string, column = 'a') => ({
    component_id: id,
    type: 'card',
    data_collection_id: 't',
    column,
    agg: 'sum',
    title: `Sum of ${column}`,
  });
  const generatedDashboard = (title: string, components: Record<string, unknown>[]) => ({
    title,
    components,
    layout: components.map((component, index) => ({
      component_id: component.component_id,
      x: 0,
      y: index * 2,
      w: 4,
      h: 2,
    })),
  });
  const apply = async (templateId: string, dashboards: Record<string, unknown>[]) => {
    const answer = await call<Applied>(server, 'PUT', `/projects/${projectId}/template-dashboards`, {
      token: ada.access_token,
      json: { template_id: templateId, dashboards },
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const get = async (dashboardId: string) =>
    (await call<DashboardAnswer>(server, 'GET', `/dashboards/${dashboardId}`, { token: ada.access_token })).body;
  const generated = async (dashboardId: string) => {
    const answer = await call<Generated>(server, 'GET', `/dashboards/${dashboardId}/generated`, {
      token: ada.access_token,
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const revisions = async (dashboardId: string) =>
    (
      await call<{ total: number }>(server, 'GET', `/dashboards/${dashboardId}/revisions`, {
        token: ada.access_token,
      })
    ).body.total;
  const edit = async (dashboard: DashboardAnswer, changes: Partial<DashboardAnswer>) => {
    const { title, description, tabs, components, layout } = { ...dashboard, ...changes };
    const saved = await call(server, 'PUT', `/dashboards/${dashboard.dashboard_id}`, {
      token: ada.access_token,
      json: { title, description, tabs, components, layout },
    });
    expect(saved.status, saved.text).toBe(200);
  };

  it('makes a dashboard, leaves out what the data cannot answer, and changes nothing when run again alike', async () => {
    const first = await apply('acme/qc/1.0.0', [generatedDashboard('QC', [table('sum_a'), table('sum_z', 'zzz')])]);
    expect(first.items.map((item) => [item.title, item.outcome])).toEqual([['QC', 'created']]);
    expect(first.left_out).toEqual(['sum_z']);
    const id = first.items[0]?.dashboard_id as string;
    expect((await get(id)).components.map((c) => c.component_id)).toEqual(['sum_a']);
    expect(await generated(id)).toEqual({
      dashboard_id: id,
      generated_from: 'acme/qc: QC',
      edited: false,
      offer: null,
    });
    const again = await apply('acme/qc/1.0.0', [generatedDashboard('QC', [table('sum_a'), table('sum_z', 'zzz')])]);
    expect(again.items).toEqual([{ dashboard_id: id, title: 'QC', outcome: 'unchanged' }]);
    expect(await revisions(id)).toBe(1);
  });

  it('updates an unedited generated dashboard in place, as a new revision, whatever the version of the template', async () => {
    const made = await apply('acme/unedited/1.0.0', [generatedDashboard('Unedited', [table('sum_a')])]);
    const id = made.items[0]?.dashboard_id as string;
    const next = await apply('acme/unedited/1.1.0', [
      generatedDashboard('Unedited', [table('sum_a'), table('sum_b', 'b')]),
    ]);
    expect(next.items).toEqual([{ dashboard_id: id, title: 'Unedited', outcome: 'updated' }]);
    expect((await get(id)).components.map((c) => c.component_id)).toEqual(['sum_a', 'sum_b']);
    expect(await revisions(id)).toBe(2);
    expect((await generated(id)).edited).toBe(false);
  });

  it("never overwrites a person's edit: the new generated version is offered, then applied as a new revision", async () => {
    const made = await apply('acme/edited/1.0.0', [generatedDashboard('Edited', [table('sum_a')])]);
    const id = made.items[0]?.dashboard_id as string;
    const dashboard = await get(id);
    await edit(dashboard, {
      title: 'Edited by Ada',
      components: dashboard.components.map((component) => ({ ...component, title: 'Ada’s total' })),
    });
    expect((await generated(id)).edited).toBe(true);

    const rerun = await apply('acme/edited/1.0.0', [
      generatedDashboard('Edited', [table('sum_a'), table('sum_b', 'b')]),
    ]);
    expect(rerun.items).toEqual([{ dashboard_id: id, title: 'Edited', outcome: 'offered' }]);
    const kept = await get(id);
    expect(kept.title).toBe('Edited by Ada');
    expect(kept.components).toEqual([expect.objectContaining({ component_id: 'sum_a', title: 'Ada’s total' })]);
    expect(await revisions(id)).toBe(2);
    const offered = await generated(id);
    expect(offered.edited).toBe(true);
    expect(offered.offer).toMatchObject({
      template_id: 'acme/edited/1.0.0',
      title: 'Edited',
      changes: { components_added: ['sum_b'], title_changed: true },
    });
    expect(offered.offer?.components.map((c) => c.component_id)).toEqual(['sum_a', 'sum_b']);

    // The same run again keeps the offer as it was.
    await apply('acme/edited/1.0.0', [generatedDashboard('Edited', [table('sum_a'), table('sum_b', 'b')])]);
    expect((await generated(id)).offer?.offered_at).toBe(offered.offer?.offered_at);

    const applied = await call<DashboardAnswer>(server, 'POST', `/dashboards/${id}/generated/apply`, {
      token: ada.access_token,
    });
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body.title).toBe('Edited');
    expect(applied.body.components.map((c) => c.component_id)).toEqual(['sum_a', 'sum_b']);
    expect(await revisions(id)).toBe(3);
    expect(await generated(id)).toMatchObject({ edited: false, offer: null });
    // Applied, it counts as generated again: the next run updates it in place.
    const later = await apply('acme/edited/1.0.0', [generatedDashboard('Edited', [table('sum_b', 'b')])]);
    expect(later.items[0]?.outcome).toBe('updated');
    const none = await call(server, 'POST', `/dashboards/${id}/generated/apply`, { token: ada.access_token });
    expect(none.status).toBe(404);
  });

  it('keeps the edited dashboard as it is when its editor dismisses the offer', async () => {
    const made = await apply('acme/dismissed/1.0.0', [generatedDashboard('Dismissed', [table('sum_a')])]);
    const id = made.items[0]?.dashboard_id as string;
    await edit(await get(id), { description: 'mine' });
    await apply('acme/dismissed/1.0.0', [generatedDashboard('Dismissed', [table('sum_b', 'b')])]);
    expect((await generated(id)).offer).not.toBeNull();
    const dismissed = await call(server, 'DELETE', `/dashboards/${id}/generated/offer`, { token: ada.access_token });
    expect(dismissed.status, dismissed.text).toBe(204);
    expect(await generated(id)).toMatchObject({ edited: true, offer: null });
    expect((await get(id)).description).toBe('mine');
    expect((await get(id)).components.map((c) => c.component_id)).toEqual(['sum_a']);
  });
});
