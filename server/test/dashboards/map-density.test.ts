import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/test-server.js';
import { chartHarness, rowsOf } from './analytics-table.js';

/*
 * Issue 29, maps: a point map over its budget is a density grid counted in DuckDB (cells of
 * latitude and longitude, the finest whose grid over the points' extent fits the budget);
 * coordinates off the map are counted and reported, never drawn; numeric country codes held as
 * decimals (4.0) name their country; a choropleth lists at most 10 codes per country, and a click
 * still selects every row of the country. Numbers worked out by hand from the tables below.
 */

const POINTS = { component_id: 'p', type: 'figure', chart: 'point_map', latitude: 'lat', longitude: 'lon' };
const ROWS = { component_id: 'n', type: 'card', agg: 'count' };
const CHOROPLETH = { component_id: 'm', type: 'figure', chart: 'choropleth', region: 'code' };

/**
 * 100 points in Paris (48.85, 2.35), 50 in New York (40.71, −74.01), one at latitude 95 (off the
 * map) and one without coordinates. The extent is 76.36° of longitude by 8.14° of latitude: 1°
 * cells make 78 × 9 = 702 of them, 2° cells 40 × 5 = 200, 5° cells 16 × 2 = 32 ≤ 100 (the
 * budget). Paris is in cell (0, 9), centre (2.5, 47.5); New York in (−15, 8), centre (−72.5, 42.5).
 */
const TWO_CITIES = [
  'lat,lon',
  ...Array.from({ length: 100 }, () => '48.85,2.35'),
  ...Array.from({ length: 50 }, () => '40.71,-74.01'),
  '95,10',
  ',',
  '',
].join('\n');

/**
 * 120 points over a tenth of a degree of Paris: the 100 corners of a 0.01° lattice from
 * (48.80, 2.30) to (48.89, 2.39), and 20 more at (48.80, 2.30). 0.01° cells make 10 × 10 = 100.
 */
const PARIS = [
  'lat,lon',
  ...Array.from(
    { length: 100 },
    (_, i) => `${(48.8 + (i % 10) / 100).toFixed(2)},${(2.3 + Math.floor(i / 10) / 100).toFixed(2)}`,
  ),
  ...Array.from({ length: 20 }, () => '48.80,2.30'),
  '',
].join('\n');

describeEachDialect('map density and what maps cannot place', (dialect) => {
  const charts = chartHarness(dialect, 'Map density');

  it('counts the points per cell beyond the budget, and draws each point below it', async () => {
    const components = await charts.draw(TWO_CITIES, [
      { ...POINTS, max_points: 100 },
      { ...POINTS, component_id: 'q', max_points: 200 },
    ]);
    const dense = components.p as Record<string, unknown>;
    expect(dense).toMatchObject({ sampled: false, total_rows: 152, density: { cell: 5, points: 150 } });
    expect(rowsOf(dense)).toEqual([
      { x: -72.5, y: 42.5, n: 50 },
      { x: 2.5, y: 47.5, n: 100 },
    ]);
    expect(dense.off_map).toEqual({ rows: 1, examples: [{ latitude: 95, longitude: 10, rows: 1 }], missing: 1 });
    // Under the budget: the 150 points themselves, the one off the map left out.
    const points = components.q as Record<string, unknown>;
    expect(points).toMatchObject({ sampled: false, total_rows: 152 });
    expect(points.density).toBeUndefined();
    expect((points.rows as unknown[]).length).toBe(150);
    expect(rowsOf(points).filter((row) => row.y === 95)).toEqual([]);
    expect(points.off_map).toEqual(dense.off_map);
  });

  it('takes the finest cell whose grid fits the budget', async () => {
    const dense = (await charts.draw(PARIS, [{ ...POINTS, max_points: 100 }])).p as Record<string, unknown>;
    expect(dense.density).toEqual({ cell: 0.01, points: 120 });
    const cells = rowsOf(dense);
    expect(cells).toHaveLength(100);
    expect(cells.reduce((sum, cell) => sum + Number(cell.n), 0)).toBe(120);
    const first = cells[0] ?? {};
    expect(first.x).toBeCloseTo(2.305, 9);
    expect(first.y).toBeCloseTo(48.805, 9);
    expect(first.n).toBe(21);
    expect(cells.filter((cell) => cell.n !== 1)).toHaveLength(1);
  });

  it('filters the others by a rectangle brushed over the density', async () => {
    const { data } = await charts.dashboardOf(TWO_CITIES, [{ ...POINTS, max_points: 100 }, ROWS]);
    // Longitude −10 to 10, latitude 40 to 60: Paris only.
    const brushed = await data([{ component_id: 'p', value: [-10, 10, 40, 60] }]);
    expect(brushed.status, brushed.text).toBe(200);
    expect(brushed.body.components.n).toEqual({ value: 100, unfiltered_value: 152 });
  });

  it('matches numeric codes held as decimals to their country', async () => {
    const csv = ['code,n', '4.0,1', '250.0,2', '250,3', '250.5,4', ''].join('\n');
    const { data } = await charts.dashboardOf(csv, [{ ...CHOROPLETH, agg: 'sum', y: 'n' }, ROWS]);
    const answer = await data();
    expect(answer.status, answer.text).toBe(200);
    const map = answer.body.components.m as Record<string, unknown>;
    expect(rowsOf(map)).toEqual([
      { region: 'Afghanistan', code: 'AFG', y: 1, rows: 1, codes: [4], code_count: 1 },
      { region: 'France', code: 'FRA', y: 5, rows: 2, codes: [250], code_count: 1 },
    ]);
    expect(map.unmatched).toEqual({ rows: 1, values: 1, examples: [{ code: 250.5, rows: 1 }], missing: 0 });
    const clicked = await data([{ component_id: 'm', value: [250] }]);
    expect(clicked.body.components.n).toEqual({ value: 2, unfiltered_value: 4 });
  });

  it('lists at most 10 codes per country, and a click on it still selects all its rows', async () => {
    const spellings = ['FRA', 'fra', 'Fra', 'fRA', 'frA', 'FR', 'fr', 'Fr', 'fR', 'France', 'FRANCE', 'france'];
    const csv = ['code,n', ...spellings.map((code, i) => `${code},${i}`), 'USA,1', ''].join('\n');
    const { data } = await charts.dashboardOf(csv, [CHOROPLETH, ROWS]);
    const answer = await data();
    expect(answer.status, answer.text).toBe(200);
    const [france] = rowsOf(answer.body.components.m as Record<string, unknown>).filter(
      (row) => row.region === 'France',
    );
    expect(france).toMatchObject({ y: 12, rows: 12, code_count: 12 });
    const codes = france?.codes as string[];
    expect(codes).toHaveLength(10);
    expect(codes.every((code) => spellings.includes(code))).toBe(true);
    const clicked = await data([{ component_id: 'm', value: codes }]);
    expect(clicked.status, clicked.text).toBe(200);
    expect(clicked.body.components.n).toEqual({ value: 12, unfiltered_value: 13 });
    // A code of no country still selects its own rows.
    const unknown = await data([{ component_id: 'm', value: ['USA', 'XX'] }]);
    expect(unknown.body.components.n).toEqual({ value: 1, unfiltered_value: 13 });
  });
});
