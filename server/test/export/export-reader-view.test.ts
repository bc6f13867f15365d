import type { Problem } from '@service/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, describeEachDialect } from '../../../test/support/test-server.js';
import { API_PREFIX } from '../../src/http/prefix.js';
import { coverageDashboard, createToken, type ExportWorld, exportPath, exportWorld } from './export-fixture.js';

/**
 * Issues 28 and 29: an export takes the reader's view of its component (docs/export.md) — a table's
 * header filters, order and shown columns (`?tables=` in the web app), a coverage track's contig
 * (`?contigs=`) — for a reader and under an embed token alike. On export-fixture.ts's 120 penguins:
 * sample S000…S119, Gentoo for 60 ≤ i < 100, mass 3000 + 10·i; the table shows sample, species
 * and mass, five rows a page, by sample.
 */

interface TableSpecAnswer {
  spec: { columns: { name: string }[]; rows: Record<string, unknown>[] };
  version: Record<string, number | null>;
}

/** The heaviest Gentoos first, mass before sample, species hidden. */
const GENTOO_VIEW = {
  column_filters: JSON.stringify([{ column: 'species', op: 'in', value: ['Gentoo'] }]),
  sort: 'mass:desc',
  columns: JSON.stringify(['mass', 'sample']),
};
const HEAVIEST_GENTOOS = [99, 98, 97, 96, 95].map((i) => ({ mass: 3000 + 10 * i, sample: `S0${i}` }));

/** The cells of each body row of a page's table. */
function pageRows(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1] ?? ''),
  );
}

describeEachDialect('an export of the reader’s view', (dialect) => {
  let world: ExportWorld;
  let tracks: string;
  beforeAll(async () => {
    world = await exportWorld(dialect);
    tracks = await coverageDashboard(world);
  });
  afterAll(async () => {
    await world.server.stop();
    await world.server.database.drop();
  });
  const get = <T = TableSpecAnswer>(path: string, token?: string) =>
    call<T>(world.server, 'GET', path, token === undefined ? {} : { token });

  it("exports a table's first page under its header filters, in its order, with its reader's columns", async () => {
    const spec = await get(exportPath(world.dashboardId, 'rows', GENTOO_VIEW), world.carol.access_token);
    expect(spec.status, spec.text).toBe(200);
    expect(spec.body.spec.columns.map((column) => column.name)).toEqual(['mass', 'sample']);
    expect(spec.body.spec.rows).toEqual(HEAVIEST_GENTOOS);
    expect(spec.body.version).toEqual({ [world.collectionId]: expect.any(Number) });

    const page = await get(exportPath(world.dashboardId, 'rows', { ...GENTOO_VIEW, format: 'html' }));
    expect(page.status).toBe(401);
    const html = await call(
      world.server,
      'GET',
      exportPath(world.dashboardId, 'rows', { ...GENTOO_VIEW, format: 'html' }),
      { token: world.carol.access_token },
    );
    expect(html.status, html.text).toBe(200);
    expect(html.text).toContain('<thead><tr><th scope="col">mass</th><th scope="col">sample</th></tr></thead>');
    expect(pageRows(html.text)).toEqual(HEAVIEST_GENTOOS.map((row) => [String(row.mass), row.sample]));
    expect(html.text).not.toContain('Gentoo');
  });

  it('hides and orders columns alone, keeping the saved order and every row', async () => {
    const spec = await get(
      exportPath(world.dashboardId, 'rows', { columns: JSON.stringify(['species', 'sample']) }),
      world.carol.access_token,
    );
    expect(spec.status, spec.text).toBe(200);
    expect(spec.body.spec.rows).toEqual(
      ['S000', 'S001', 'S002', 'S003', 'S004'].map((sample) => ({ species: 'Adelie', sample })),
    );
  });

  it('takes the view under an embed token too, its fixed filters still on top', async () => {
    const token = await createToken(world, {
      component_id: 'rows',
      filters: [{ component_id: 'species', value: ['Gentoo'] }],
    });
    const view = {
      column_filters: JSON.stringify([{ column: 'mass', op: 'between', value: [null, 3700] }]),
      sort: 'mass:desc',
      columns: JSON.stringify(['sample']),
      token: token.token,
    };
    const spec = await get(exportPath(world.dashboardId, 'rows', view));
    expect(spec.status, spec.text).toBe(200);
    // Gentoo (i ≥ 60) up to 3,700 g (i ≤ 70), heaviest first.
    expect(spec.body.spec.rows).toEqual([70, 69, 68, 67, 66].map((i) => ({ sample: `S0${i}` })));
  });

  it('refuses a view the component has not, and columns or filters the table does not show', async () => {
    const token = world.carol.access_token;
    const refused = async (component: string, query: Record<string, string>, dashboardId = world.dashboardId) => {
      const answer = await get<Problem>(exportPath(dashboardId, component, query), token);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.code).toBe('validation_failed');
      return answer.body.errors?.map((error) => error.path);
    };
    expect(await refused('bars', { columns: '["species"]', sort: 'species:asc' })).toEqual([
      'querystring.sort',
      'querystring.columns',
    ]);
    expect(await refused('rows', { contig: 'chr2' })).toEqual(['querystring.contig']);
    expect(await refused('rows', { columns: '["sample","island"]' })).toEqual(['querystring.columns[1]']);
    expect(await refused('rows', { columns: '["sample","sample"]' })).toEqual(['querystring.columns[1]']);
    expect(await refused('rows', { columns: '[]' })).toEqual(['querystring.columns']);
    const island = JSON.stringify([{ column: 'island', op: 'in', value: ['Dream'] }]);
    expect(await refused('rows', { column_filters: island })).toEqual(['querystring.column_filters[0].column']);
    expect(await refused('rows', { sort: 'island:asc' })).toEqual(['querystring.sort']);
  });

  it("exports a coverage track at the reader's contig, for a reader and through an embed URL", async () => {
    const own = await get<{ spec: { xAxis: { name: string }[] | { name: string } } }>(
      exportPath(tracks, 'c'),
      world.ada.access_token,
    );
    expect(own.status, own.text).toBe(200);
    const axisName = (spec: { xAxis: { name: string }[] | { name: string } }) => [spec.xAxis].flat()[0]?.name;
    expect(axisName(own.body.spec)).toBe('pos on 1');

    const picked = await get<{ spec: { xAxis: { name: string }[] | { name: string } } }>(
      exportPath(tracks, 'c', { contig: 'chr2' }),
      world.ada.access_token,
    );
    expect(picked.status, picked.text).toBe(200);
    expect(axisName(picked.body.spec)).toBe('pos on 2');
    // chr2's buckets, worked out by hand (coverage-contigs.test.ts): [1, 3.5) and [3.5, 6].
    expect(JSON.stringify(picked.body.spec)).not.toEqual(JSON.stringify(own.body.spec));

    const embed = await createToken(world, { component_id: 'c' }, tracks);
    const url = new URL(embed.html_url);
    url.searchParams.set('contig', 'M');
    const page = await call(world.server, 'GET', `${url.pathname.slice(API_PREFIX.length)}${url.search}`);
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('along pos on MT');

    // A contig the table lacks: the track cannot be drawn (409), as for a saved one.
    const stale = await get<Problem>(exportPath(tracks, 'c', { contig: 'chr9' }), world.ada.access_token);
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.code).toBe('component_unavailable');
  });
});
