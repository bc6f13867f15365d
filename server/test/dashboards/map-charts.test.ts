import { expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, rowsOf } from './analytics-table.js';

/*
 * Issue 29, maps: a choropleth of country codes (alpha-3, alpha-2, numeric and names mixed in one
 * column), coloured by an aggregate, its unknown codes counted; a point map of latitude and
 * longitude (beyond its budget: map-density.test.ts); a click on a country and a brushed rectangle filter the
 * others. Numbers worked out by hand from the table below.
 */

/** Eight sites: France three ways, the USA two ways, Brazil once, one unknown code and one missing. */
const SITES_CSV = [
  'site,country,reads,lat,lon',
  'a,FRA,10,48.8,2.3',
  'b,fr,20,45.7,4.8',
  'c,France,30,43.3,5.4',
  'd,USA,5,40.7,-74.0',
  'e,840,7,34.0,-118.2',
  'f,BR,1,-23.5,-46.6',
  'g,XX,100,0,0',
  'h,,2,51.5,-0.1',
  '',
].join('\n');

const ROWS = { component_id: 'n', type: 'card', agg: 'count' };
const CHOROPLETH = { component_id: 'm', type: 'figure', chart: 'choropleth', region: 'country' };
const POINTS = { component_id: 'p', type: 'figure', chart: 'point_map', latitude: 'lat', longitude: 'lon' };

describeEachDialect('map charts', (dialect) => {
  const charts = chartHarness(dialect, 'Maps');

  it('counts each country once whatever code names it, and reports the codes not on the map', async () => {
    const components = await charts.draw(SITES_CSV, [
      CHOROPLETH,
      { ...CHOROPLETH, component_id: 's', agg: 'sum', y: 'reads' },
    ]);
    const counted = components.m as Record<string, unknown>;
    expect(rowsOf(counted)).toEqual([
      { region: 'Brazil', code: 'BRA', y: 1, rows: 1, codes: ['BR'], code_count: 1 },
      { region: 'France', code: 'FRA', y: 3, rows: 3, codes: ['FRA', 'France', 'fr'], code_count: 3 },
      { region: 'United States of America', code: 'USA', y: 2, rows: 2, codes: ['840', 'USA'], code_count: 2 },
    ]);
    expect(counted.total_rows).toBe(8);
    expect(counted.unmatched).toEqual({ rows: 1, values: 1, examples: [{ code: 'XX', rows: 1 }], missing: 1 });
    const summed = rowsOf(components.s as Record<string, unknown>);
    expect(summed.map((row) => [row.region, row.y])).toEqual([
      ['Brazil', 1],
      ['France', 60],
      ['United States of America', 12],
    ]);
  });

  it('matches numeric codes held as integers, with or without their leading zeros', async () => {
    const csv = ['code,n', '4,1', '250,2', '250,3', '999,4', ''].join('\n');
    const components = await charts.draw(csv, [{ ...CHOROPLETH, region: 'code', agg: 'sum', y: 'n' }]);
    const answer = components.m as Record<string, unknown>;
    expect(rowsOf(answer)).toEqual([
      { region: 'Afghanistan', code: 'AFG', y: 1, rows: 1, codes: [4], code_count: 1 },
      { region: 'France', code: 'FRA', y: 5, rows: 2, codes: [250], code_count: 1 },
    ]);
    expect(answer.unmatched).toEqual({ rows: 1, values: 1, examples: [{ code: 999, rows: 1 }], missing: 0 });
  });

  it('narrows the others to a clicked country’s codes and to a brushed rectangle', async () => {
    const { data } = await charts.dashboardOf(SITES_CSV, [CHOROPLETH, POINTS, ROWS]);
    const clicked = await data([{ component_id: 'm', value: ['FRA', 'France', 'fr'] }]);
    expect(clicked.status, clicked.text).toBe(200);
    expect(clicked.body.components.n).toEqual({ value: 3, unfiltered_value: 8 });
    expect(clicked.body.components.p?.total_rows).toBe(3);
    // The clicked map stays whole.
    expect(rowsOf(clicked.body.components.m as Record<string, unknown>)).toHaveLength(3);
    // Longitude −80 to 10, latitude 30 to 50: a, b, c, d (h is at 51.5).
    const brushed = await data([{ component_id: 'p', value: [-80, 10, 30, 50] }]);
    expect(brushed.status, brushed.text).toBe(200);
    expect(brushed.body.components.n).toEqual({ value: 4, unfiltered_value: 8 });
    const counted = rowsOf(brushed.body.components.m as Record<string, unknown>);
    expect(counted.map((row) => [row.region, row.y])).toEqual([
      ['France', 3],
      ['United States of America', 1],
    ]);
  });

  it('draws every point under the budget', async () => {
    const components = await charts.draw(SITES_CSV, [
      POINTS,
      { ...POINTS, component_id: 'q', color: 'country', max_points: 100 },
    ]);
    const points = components.p as Record<string, unknown>;
    expect(points).toMatchObject({ sampled: false, total_rows: 8 });
    expect(rowsOf(points)).toContainEqual({ x: 2.3, y: 48.8 });
    expect((points.rows as unknown[]).length).toBe(8);
    expect(points.density).toBeUndefined();
    expect(points.off_map).toEqual({ rows: 0, examples: [], missing: 0 });
  });

  it('refuses a map without its columns, a wrong filter shape and a column of the wrong type', async () => {
    const table = await charts.table(SITES_CSV);
    const noRegion = await charts.save(table, [{ ...CHOROPLETH, region: undefined }]);
    expect(noRegion.status).toBe(400);
    expect(noRegion.text).toContain('region');
    const textLatitude = await charts.save(table, [{ ...POINTS, latitude: 'site' }]);
    expect(textLatitude.status).toBe(400);
    const { data } = await charts.dashboardOf(SITES_CSV, [CHOROPLETH, POINTS, ROWS]);
    const notList = await data([{ component_id: 'm', value: 'FRA' }]);
    expect(notList.status).toBe(400);
    expect(notList.text).toContain('country codes');
    const notBox = await data([{ component_id: 'p', value: [1, 2] }]);
    expect(notBox.status).toBe(400);
    expect(notBox.text).toContain('longitude_low');
  });

  it('names the maps in GET /dashboards/schema and round-trips them through YAML', async () => {
    const schema = await call<{ $defs: Record<string, { properties?: Record<string, { enum?: string[] }> }> }>(
      charts.server,
      'GET',
      '/dashboards/schema',
    );
    const figure = schema.body.$defs.FigureComponent?.properties ?? {};
    expect(figure.chart?.enum).toEqual(expect.arrayContaining(['choropleth', 'point_map']));
    expect(Object.keys(figure)).toEqual(expect.arrayContaining(['region', 'latitude', 'longitude']));
    const { dashboardId } = await charts.dashboardOf(SITES_CSV, [
      { ...CHOROPLETH, agg: 'mean', y: 'reads' },
      { ...POINTS, color: 'country', size: 'reads' },
    ]);
    const token = charts.ada.access_token;
    const original = await call<{ components: unknown[] }>(charts.server, 'GET', `/dashboards/${dashboardId}`, {
      token,
    });
    const yaml = await call(charts.server, 'GET', `/dashboards/${dashboardId}/yaml`, { token });
    expect(yaml.status, yaml.text).toBe(200);
    expect(yaml.text).toContain('chart: choropleth');
    expect(yaml.text).toContain('region: country');
    const imported = await call<{ components: unknown[] }>(charts.server, 'POST', '/dashboards/import', {
      token,
      body: yaml.text,
      headers: { 'content-type': 'application/yaml' },
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.components).toEqual(original.body.components);
  });
});
