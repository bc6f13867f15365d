import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect, type Session, type TestServer } from '../../../test/support/test-server.js';
import { serverWithPeople } from '../dashboards/analytics-table.js';
import { exportPath } from '../export/export-fixture.js';
import { ampliseqProject } from './ampliseq-fixture.js';

/**
 * MultiQC plots exported and embedded like figures (docs/export.md): the spec is the plot's
 * ECharts option with its data, a MultiQC table a table spec, and an embed token's page draws it,
 * under the token's fixed sample filter.
 */

interface Spec {
  type: string;
  spec: {
    series?: { name?: string; data?: unknown[] }[];
    yAxis?: { data?: string[] };
    columns?: { name: string }[];
    rows?: Record<string, unknown>[];
  };
}

describeEachDialect('MultiQC export', (dialect) => {
  let server: TestServer;
  let ada: Session;
  let dashboardId: string;

  beforeAll(async () => {
    const people = await serverWithPeople(dialect);
    server = people.server;
    ada = await people.session('ada@example.org');
    const ids = await ampliseqProject(server, ada.access_token);
    const plot = (component_id: string, anchor: string) => ({
      component_id,
      type: 'multiqc',
      data_collection_id: ids.multiqcId,
      plot: anchor,
    });
    const created = await call<{ dashboard_id: string }>(server, 'POST', '/dashboards', {
      token: ada.access_token,
      json: {
        project_id: ids.projectId,
        title: 'QC',
        components: [plot('counts', 'fastqc_sequence_counts_plot'), plot('general', 'general_stats_table')],
      },
    });
    expect(created.status, created.text).toBe(201);
    dashboardId = created.body.dashboard_id;
  });
  afterAll(async () => {
    await server.stop();
    await server.database.drop();
  });

  it('exports a bar plot as its ECharts option with every sample and category', async () => {
    const answer = await call<Spec>(server, 'GET', exportPath(dashboardId, 'counts'), { token: ada.access_token });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.type).toBe('multiqc');
    const samples = answer.body.spec.yAxis?.data ?? [];
    expect(samples).toHaveLength(24);
    const unique = answer.body.spec.series?.find((series) => series.name === 'Unique Reads');
    expect(unique?.data?.[samples.indexOf('SRR10070130_1')]).toBe(8336);
  });

  it('exports the general statistics as a table spec', async () => {
    const answer = await call<Spec>(server, 'GET', exportPath(dashboardId, 'general'), { token: ada.access_token });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.spec.columns?.map((column) => column.name)).toContain('fastqc-percent_gc');
    expect(answer.body.spec.rows?.find((row) => row.sample === 'SRR10070130_1')).toMatchObject({
      'fastqc-percent_gc': 51,
    });
  });

  it('embeds a plot with an offline page, narrowed by the token’s fixed sample filter', async () => {
    const token = await call<{ token: string }>(server, 'POST', `/dashboards/${dashboardId}/embed_tokens`, {
      token: ada.access_token,
      json: { component_id: 'counts', filters: [{ component_id: 'counts', value: ['SRR10070132'] }] },
    });
    expect(token.status, token.text).toBe(201);
    const spec = await call<Spec>(server, 'GET', exportPath(dashboardId, 'counts', { token: token.body.token }));
    expect(spec.status, spec.text).toBe(200);
    expect(spec.body.spec.yAxis?.data).toEqual(['SRR10070132_1', 'SRR10070132_2']);
    const page = await call(
      server,
      'GET',
      exportPath(dashboardId, 'counts', { token: token.body.token, format: 'html' }),
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toContain('SRR10070132_1');
    expect(page.text).not.toContain('SRR10070130_1');
  });
});
