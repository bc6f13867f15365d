import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { type ExportWorld, exportPath, exportWorld, HOSTILE } from './export-fixture.js';

/**
 * GET /export/components/{dashboard_id}/{component_id} (docs/architecture.md "Export") for readers
 * and strangers: the spec of each component type, the self-contained page and its policy, and the
 * answers to unknown ids, wrong formats and callers without a right to the dashboard.
 */

interface Spec {
  dashboard_id: string;
  component_id: string;
  type: string;
  title: string | null;
  spec: Record<string, unknown>;
  version: Record<string, number | null>;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

describeEachDialect('component export', (dialect) => {
  let world: ExportWorld;
  beforeAll(async () => {
    world = await exportWorld(dialect);
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });
  const get = <T = Spec>(path: string, token?: string) =>
    call<T>(world.server, 'GET', path, token === undefined ? {} : { token });

  it('answers a figure as a complete ECharts option with its data in dataset.source', async () => {
    const answer = await get(exportPath(world.dashboardId, 'bars'), world.carol.access_token);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ dashboard_id: world.dashboardId, component_id: 'bars', type: 'figure' });
    expect(answer.body.version).toEqual({ [world.collectionId]: expect.any(Number) });
    const spec = answer.body.spec as {
      dataset: { source: unknown[][] }[] | { source: unknown[][] };
      series: unknown[];
    };
    const datasets = [spec.dataset].flat();
    const counts = Object.fromEntries(
      datasets.flatMap((dataset) =>
        dataset.source
          .filter((row) => Array.isArray(row) && typeof row[0] === 'string')
          .map((row) => [row[0], row.find((cell) => typeof cell === 'number')]),
      ),
    );
    expect(counts).toMatchObject({ Adelie: 60, Gentoo: 40, Chinstrap: 20 });
    expect(spec.series.length).toBeGreaterThan(0);
  });

  it('answers a card as its number, the unfiltered one and a label; a table as its first page', async () => {
    const card = await get(exportPath(world.dashboardId, 'mass'), world.carol.access_token);
    // mass = 3000 + 10·i for i = 0…119: mean 3595.
    expect(card.body).toMatchObject({
      type: 'card',
      title: 'Mean mass',
      spec: { value: 3595, unfiltered_value: 3595, label: 'mean mass' },
    });
    const filtered = await get(
      exportPath(world.dashboardId, 'mass', {
        filters: JSON.stringify([{ component_id: 'species', value: ['Chinstrap'] }]),
      }),
      world.carol.access_token,
    );
    // Chinstrap: i = 100…119, mean mass 3000 + 10·109.5.
    expect(filtered.body.spec).toMatchObject({ value: 4095, unfiltered_value: 3595 });
    const table = await get(exportPath(world.dashboardId, 'rows'), world.carol.access_token);
    expect(table.status, table.text).toBe(200);
    const spec = table.body.spec as { columns: { name: string }[]; rows: Record<string, unknown>[] };
    expect(spec.columns.map((column) => column.name)).toEqual(['sample', 'species', 'mass']);
    expect(spec.rows.map((row) => row.sample)).toEqual(['S000', 'S001', 'S002', 'S003', 'S004']);
  });

  it('refuses a text component as a spec (400) and serves it as a page', async () => {
    const spec = await get(exportPath(world.dashboardId, 'intro'), world.carol.access_token);
    expect(spec.status).toBe(400);
    expect(spec.body).toMatchObject({ code: 'validation_failed' });
    const page = await get(exportPath(world.dashboardId, 'intro', { format: 'html' }), world.carol.access_token);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<h2 id="about">About</h2>');
    expect(page.text).toContain('<a href="https://example.org" target="_blank" rel="noreferrer noopener">the site</a>');
  });

  it('escapes <script> and </script> in titles and text, in the page and in its inline JSON', async () => {
    for (const component of ['intro', 'bars']) {
      const page = await get(exportPath(world.dashboardId, component, { format: 'html' }), world.carol.access_token);
      expect(page.status, page.text).toBe(200);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('</script><script>alert');
      expect(page.text).not.toContain('<!--');
      // Only the page's own elements: at most the data block and the chart's script.
      expect(page.text.match(/<script/g)?.length ?? 0).toBeLessThanOrEqual(2);
      expect(page.text).toContain('&#60;/script&#62;&#60;script&#62;alert(1)');
    }
    const figure = await get(exportPath(world.dashboardId, 'bars', { format: 'html' }), world.carol.access_token);
    const data = /<script type="application\/json" id="export-spec">([\s\S]*?)<\/script>/.exec(figure.text)?.[1] ?? '';
    expect(data).toContain('\\u003c/script\\u003e');
    expect(JSON.stringify(JSON.parse(data))).toContain(HOSTILE.replace('<!--', ''));
  });

  it('sends a page whose CSP admits nothing but its own script and style, by hash, framable by anyone', async () => {
    const page = await get(
      exportPath(world.dashboardId, 'hist', { format: 'html', theme: 'dark' }),
      world.carol.access_token,
    );
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp.split(';').map((part) => {
        const [name = '', ...values] = part.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives['default-src']).toBe("'none'");
    expect(directives['frame-ancestors']).toBe('*');
    const scripts = [...page.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? '');
    const styles = [...page.text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? '');
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    expect(directives['script-src']).toBe(sha256(scripts[0] as string));
    expect(directives['style-src']).toBe(sha256(styles[0] as string));
    expect(page.text).toContain('data-theme="dark"');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('access-control-allow-origin')).toBe('*');
    // Tree-shaken: the series the dashboards draw (the field's charts added sankey, sunburst, tree,
    // treemap and funnel; maps the map series, the geo component and TopoJSON's decoder: +42 kB),
    // none they never do, well under the full build (1 MB).
    const script = scripts[0] as string;
    expect(script).toContain('series.heatmap');
    for (const unused of ['gauge', 'radar', 'lines', 'graph']) {
      expect(script).not.toContain(`series.${unused}"`);
    }
    expect(script.length).toBeLessThan(900_000);
    // Cards and tables need no script at all.
    const card = await get(exportPath(world.dashboardId, 'mass', { format: 'html' }), world.carol.access_token);
    expect(card.headers.get('content-security-policy')).toContain("script-src 'none'");
    expect(card.text).toContain('3,595');
  });

  it('answers 404 for an unknown dashboard or component and 400 for a filter widget', async () => {
    const token = world.carol.access_token;
    expect((await get(exportPath('0190b0b0-0000-7000-8000-000000000000', 'bars'), token)).status).toBe(404);
    expect((await get(exportPath(world.dashboardId, 'nothing'), token)).status).toBe(404);
    expect((await get(exportPath(world.dashboardId, 'species'), token)).status).toBe(400);
    expect((await get(exportPath(world.dashboardId, 'bars', { format: 'pdf' }), token)).status).toBe(400);
    expect((await get(exportPath(world.dashboardId, 'bars', { filters: '[{' }), token)).status).toBe(400);
  });

  it('answers 401 to anonymous callers of a private dashboard and 404 to strangers', async () => {
    const anonymous = await get(exportPath(world.dashboardId, 'bars'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'unauthenticated' });
    const page = await get(exportPath(world.dashboardId, 'bars', { format: 'html' }));
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await get(exportPath(world.dashboardId, 'bars'), world.dave.access_token)).status).toBe(404);
  });
});
