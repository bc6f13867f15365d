import type { DashboardComponent, FigureData } from '@service/common';
import { describe, expect, it } from 'vitest';
import { cardCsv, csvField, exportFilename, figureCsv, toCsv } from '../src/dashboard/export/csv.js';
import {
  embedScopeLabel,
  embedTokenState,
  embedUrl,
  escapeAttribute,
  iframeSnippet,
} from '../src/dashboard/export/embed-snippet.js';
import { readerViewQuery } from '../src/dashboard/export/reader-view.js';

describe('embed snippets', () => {
  const page = 'https://data.example.org/service/api/v1/export/components/d1/{component_id}?format=html&token=emb_abc';

  it("fills a dashboard-wide token's component in, and leaves a component token's address as it is", () => {
    expect(embedUrl(page, 'bars')).toBe(
      'https://data.example.org/service/api/v1/export/components/d1/bars?format=html&token=emb_abc',
    );
    expect(embedUrl(page.replace('{component_id}', '%7Bcomponent_id%7D'), 'a b')).toContain('/d1/a%20b?');
    const fixed = 'https://x.org/export/components/d1/bars?format=html&token=t';
    expect(embedUrl(fixed, 'other')).toBe(fixed);
  });

  it('adds a dark theme to the address, and nothing for the default light one', () => {
    expect(embedUrl('https://x.org/e?token=t', 'c', 'dark')).toBe('https://x.org/e?token=t&theme=dark');
    expect(embedUrl('https://x.org/e', 'c', 'dark')).toBe('https://x.org/e?theme=dark');
    expect(embedUrl('https://x.org/e?token=t', 'c', 'light')).toBe('https://x.org/e?token=t');
  });

  it("carries the reader's view of the component after the theme", () => {
    expect(embedUrl('https://x.org/e?token=t', 'c', 'dark', { contig: 'chr 2' })).toBe(
      'https://x.org/e?token=t&theme=dark&contig=chr+2',
    );
    expect(embedUrl('https://x.org/e', 'c', 'light', { sort: 'mass:desc', columns: '["mass"]' })).toBe(
      'https://x.org/e?sort=mass%3Adesc&columns=%5B%22mass%22%5D',
    );
  });

  it('builds an iframe whose attributes nothing in the title or address can leave', () => {
    const snippet = iframeSnippet({ src: 'https://x.org/e?a=1&token=t', title: 'Mass "by" <species>' });
    expect(snippet).toBe(
      '<iframe src="https://x.org/e?a=1&amp;token=t" title="Mass &quot;by&quot; &lt;species&gt;" width="100%" ' +
        'height="400" style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>',
    );
    expect(iframeSnippet({ src: 'u', title: 't', height: 250 })).toContain('height="250"');
    expect(escapeAttribute(`'"<>&`)).toBe('&#39;&quot;&lt;&gt;&amp;');
    // Read back by an HTML parser, the attributes are the values given.
    expect(readAttribute(snippet, 'src')).toBe('https://x.org/e?a=1&token=t');
    expect(readAttribute(snippet, 'title')).toBe('Mass "by" <species>');
  });

  it('tells active, expired and revoked tokens apart', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    expect(embedTokenState({ revoked: false, expires_at: '2026-11-25T00:00:00Z' }, now)).toBe('active');
    expect(embedTokenState({ revoked: false, expires_at: '2026-11-24T12:00:00Z' }, now)).toBe('expired');
    expect(embedTokenState({ revoked: true, expires_at: '2027-01-01T00:00:00Z' }, now)).toBe('revoked');
  });

  it("names a token's scope by the component's title, with what it pins", () => {
    const titles = new Map([['bars', 'By species']]);
    expect(embedScopeLabel({ component_id: null, filters: [], as_of: null }, titles)).toBe('Whole dashboard');
    expect(embedScopeLabel({ component_id: 'bars', filters: [], as_of: null }, titles)).toBe('By species');
    expect(embedScopeLabel({ component_id: 'gone', filters: [], as_of: null }, titles)).toBe('Component gone');
    expect(
      embedScopeLabel(
        { component_id: 'bars', filters: [{ component_id: 'mass', value: [1, 2] }], as_of: '2026-01-01T00:00:00Z' },
        titles,
      ),
    ).toBe('By species (1 fixed filter, pinned version)');
  });
});

describe("an export of the reader's view", () => {
  const column = (name: string) => ({ name, type: 'string', nullable: true, description: null });
  const table: DashboardComponent = {
    component_id: 'rows',
    type: 'table',
    data_collection_id: 'dc',
    page_size: 5,
    sort: [],
  };
  const track: DashboardComponent = {
    component_id: 'c',
    type: 'figure',
    data_collection_id: 'dc',
    chart: 'coverage',
    chromosome: 'contig',
    position: 'pos',
    y: 'depth',
  } as DashboardComponent;
  const components = [table, track];
  const page = {
    version: 1,
    columns: ['sample', 'species', 'mass'].map(column),
    rows: [],
    total: 0,
    limit: 5,
    skip: 0,
  };
  const params = (tables: unknown, contigs?: unknown) =>
    new URLSearchParams({
      tables: JSON.stringify(tables),
      ...(contigs === undefined ? {} : { contigs: JSON.stringify(contigs) }),
    });

  it("sends a table's header filters, order and shown columns (those it has), and no columns when its own", () => {
    const gentoo = [{ column: 'species', op: 'in', value: ['Gentoo'] }];
    const view = {
      rows: {
        column_filters: gentoo,
        sort: [{ column: 'mass', direction: 'desc' }],
        columns: ['mass', 'gone', 'sample'],
      },
    };
    expect(readerViewQuery(table, page, params(view), components)).toEqual({
      column_filters: JSON.stringify(gentoo),
      sort: 'mass:desc',
      columns: '["mass","sample"]',
    });
    expect(
      readerViewQuery(table, page, params({ rows: { columns: ['sample', 'species', 'mass'] } }), components),
    ).toEqual({});
    // Before its answer, the columns it has are unknown: none are sent.
    expect(readerViewQuery(table, undefined, params({ rows: { columns: ['mass'] } }), components)).toEqual({});
  });

  it("sends a coverage track's contig, and nothing for other components", () => {
    expect(readerViewQuery(track, undefined, params({}, { c: 'chr2' }), components)).toEqual({ contig: 'chr2' });
    expect(readerViewQuery(track, undefined, params({}), components)).toEqual({});
    expect(readerViewQuery(table, page, params({}, { c: 'chr2', rows: 'x' }), components)).toEqual({});
  });
});

describe('CSV of what a component shows', () => {
  it('quotes fields with commas, quotes, line breaks or edge spaces, and leaves nulls empty', () => {
    expect(
      ['plain', 'a,b', 'say "hi"', 'two\nlines', ' pad', 3.5, true, null, undefined, { a: 1 }].map(csvField),
    ).toEqual(['plain', '"a,b"', '"say ""hi"""', '"two\nlines"', '" pad"', '3.5', 'true', '', '', '"{""a"":1}"']);
    expect(
      toCsv(
        ['a', 'b'],
        [
          [1, 'x'],
          [null, 'y,z'],
        ],
      ),
    ).toBe('a,b\r\n1,x\r\n,"y,z"\r\n');
  });

  it('neutralises text a spreadsheet would run as a formula, headers too, but not numbers', () => {
    expect(
      ['=HYPERLINK("http://evil.example")', '+1+cmd', '-2+3', '@SUM(1)', '\tx', '\r=1', '-5', '+1e3', 'a=b', -5].map(
        csvField,
      ),
    ).toEqual([
      '"\'=HYPERLINK(""http://evil.example"")"',
      "'+1+cmd",
      "'-2+3",
      "'@SUM(1)",
      "'\tx",
      '"\'\r=1"',
      '-5',
      '+1e3',
      'a=b',
      '-5',
    ]);
    expect(toCsv(['=evil'], [['@x']])).toBe("'=evil\r\n'@x\r\n");
  });

  it("heads a figure's rows by the column each holds or what it computes", () => {
    const bars: FigureData = {
      columns: [
        { name: 'x', type: 'string', column: 'species' },
        { name: 'y', type: 'double', column: 'mass' },
        { name: 'other', type: 'boolean', column: null },
      ],
      rows: [
        ['Adelie', 3700.5, false],
        ['Gentoo', 5076, false],
      ],
      sampled: false,
      total_rows: 30,
    };
    expect(figureCsv({ chart: 'bar', agg: 'mean' }, bars)).toBe(
      'species,mean_mass,other\r\nAdelie,3700.5,false\r\nGentoo,5076,false\r\n',
    );
    const histogram: FigureData = {
      columns: [
        { name: 'x_low', type: 'double', column: 'mass' },
        { name: 'x_high', type: 'double', column: 'mass' },
        { name: 'count', type: 'bigint', column: null },
      ],
      rows: [[3000, 3500, 4]],
      sampled: false,
      total_rows: 4,
    };
    const counted: FigureData = {
      columns: [
        { name: 'x', type: 'string', column: 'species' },
        { name: 'y', type: 'bigint', column: null },
      ],
      rows: [['Adelie', 10]],
      sampled: false,
      total_rows: 10,
    };
    expect(figureCsv({ chart: 'bar' }, counted)).toBe('species,count\r\nAdelie,10\r\n');
    expect(figureCsv({ chart: 'histogram' }, histogram)).toBe('x_low,x_high,count\r\n3000,3500,4\r\n');
    const scatter: FigureData = {
      columns: [
        { name: 'x', type: 'double', column: 'bill' },
        { name: 'y', type: 'double', column: 'mass' },
      ],
      rows: [[40, 3800]],
      sampled: true,
      total_rows: 9000,
    };
    expect(figureCsv({ chart: 'scatter' }, scatter)).toBe('bill,mass\r\n40,3800\r\n');
  });

  it("writes a clustered heatmap's matrix a drawn cell per line, in drawing order", () => {
    const heatmap: FigureData = {
      columns: [
        { name: 'row', type: 'string', column: 'Phylum' },
        { name: 'column', type: 'string', column: null },
        { name: 'value', type: 'double', column: null },
        { name: 'raw', type: 'double', column: null },
      ],
      rows: [],
      sampled: false,
      total_rows: 2,
      matrix: {
        rows: ['Firmicutes', 'Chloroflexi'],
        columns: ['s2', 's1'],
        values: [Math.SQRT1_2, -Math.SQRT1_2, null, 0],
        raw: [4, 3, null, 1],
        row_tree: [[0, 1, 2.5]],
        column_tree: [[0, 1, 1]],
        annotations: [],
        total_rows: 2,
        total_columns: 2,
      },
    };
    expect(figureCsv({ chart: 'clustered_heatmap', scale: 'row' }, heatmap)).toBe(
      'Phylum,column,z_score,raw\r\n' +
        'Firmicutes,s2,0.7071067811865476,4\r\nFirmicutes,s1,-0.7071067811865476,3\r\nChloroflexi,s1,0,1\r\n',
    );
  });

  it("writes a card's number beside the unfiltered one", () => {
    expect(cardCsv('mean mass', { value: 4201.5, unfiltered_value: 4300 })).toBe(
      'label,value,unfiltered_value\r\nmean mass,4201.5,4300\r\n',
    );
  });

  it('names files after the title, safely', () => {
    expect(exportFilename('Mass by species', 'png')).toBe('Mass_by_species.png');
    expect(exportFilename('../../etc/passwd', 'csv')).toBe('etc_passwd.csv');
    expect(exportFilename('Größe', 'svg')).toBe('Gro_e.svg');
    expect(exportFilename('???', 'csv')).toBe('component.csv');
  });
});

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** One double-quoted attribute of a tag, its entities decoded as an HTML parser does. */
function readAttribute(html: string, name: string): string | undefined {
  const raw = new RegExp(`\\s${name}="([^"]*)"`).exec(html)?.[1];
  return raw?.replace(/&(amp|lt|gt|quot|#39);/g, (_, entity: string) => ENTITIES[entity] ?? '');
}
