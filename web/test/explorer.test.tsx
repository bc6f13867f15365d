// @vitest-environment jsdom
import type { DataCollection } from '@service/common';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { DataExplorer } from '../src/explorer/DataExplorer.js';
import { formatStatistic } from '../src/explorer/format.js';
import { formatSort, nextSort, parseSort } from '../src/explorer/sort.js';
import { readExplorerState } from '../src/explorer/url-state.js';
import { formatCount } from '../src/format/number.js';
import { renderWith } from './support/render-with-api.js';

describe('preview sort', () => {
  it('cycles a column ascending, descending, unsorted; a plain click sorts by that column alone', () => {
    let keys = nextSort([], 'a', false);
    expect(keys).toEqual([{ column: 'a', direction: 'asc' }]);
    keys = nextSort(keys, 'a', false);
    expect(keys).toEqual([{ column: 'a', direction: 'desc' }]);
    expect(nextSort(keys, 'a', false)).toEqual([]);
    expect(nextSort(keys, 'b', false)).toEqual([{ column: 'b', direction: 'asc' }]);
  });

  it('adds, turns and removes keys with shift-click, the others keeping their place', () => {
    let keys = nextSort([{ column: 'a', direction: 'asc' }], 'b', true);
    expect(formatSort(keys)).toBe('a:asc,b:asc');
    keys = nextSort(keys, 'a', true);
    expect(formatSort(keys)).toBe('a:desc,b:asc');
    keys = nextSort(keys, 'a', true);
    expect(formatSort(keys)).toBe('b:asc');
    keys = nextSort(keys, 'b', true);
    expect(formatSort(keys)).toBe('b:desc');
    expect(formatSort(nextSort(keys, 'b', true))).toBeNull();
  });

  it('reads the API’s own syntax, and ignores a malformed parameter instead of failing the page', () => {
    expect(parseSort('name:desc,age')).toEqual([
      { column: 'name', direction: 'desc' },
      { column: 'age', direction: 'asc' },
    ]);
    expect(parseSort('a:b:DESC')).toEqual([{ column: 'a:b', direction: 'desc' }]);
    expect(parseSort(',')).toEqual([]);
    expect(parseSort(null)).toEqual([]);
    expect(parseSort(Array.from({ length: 21 }, (_, i) => `c${i}`).join(','))).toEqual([]);
  });
});

describe('explorer state in the address bar', () => {
  it('falls back to the defaults for unknown or malformed values', () => {
    expect(readExplorerState(new URLSearchParams('view=columns&values=species&version=3'))).toEqual({
      view: 'columns',
      sort: [],
      filters: [],
      valuesOf: 'species',
      version: 3,
    });
    expect(readExplorerState(new URLSearchParams('view=admin&values=&version=-1'))).toEqual({
      view: 'preview',
      sort: [],
      filters: [],
      valuesOf: null,
      version: null,
    });
    expect(readExplorerState(new URLSearchParams('version=1e3')).version).toBeNull();
  });

  it('writes statistics with at most six significant digits', () => {
    expect(formatStatistic(null)).toBe('—');
    expect(formatStatistic(0)).toBe('0');
    expect(formatStatistic(2.5e-7)).toBe('2.5000e-7');
    expect(formatStatistic(1234.56789)).toBe('1,234.57');
    expect(formatStatistic(-0.123456789)).toBe('-0.123457');
  });

  it('writes counts with thousands separators, — when unknown', () => {
    expect(formatCount(null)).toBe('—');
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(40003)).toBe('40,003');
    expect(formatCount(10_000_000)).toBe('10,000,000');
    expect(formatCount(-1234567)).toBe('-1,234,567');
  });
});

const COLLECTION: DataCollection = {
  data_collection_id: 'd1',
  workflow_id: 'w1',
  project_id: 'p1',
  tag: 'measurements',
  pattern: 'measures\\.csv',
  format: 'csv',
  keys: null,
  description: null,
  columns: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
} as unknown as DataCollection;

const COLUMNS = [
  { name: 'species', type: 'string', nullable: true, description: null },
  { name: 'bill_mm', type: 'double', nullable: true, description: 'Bill length' },
];

/** The preview as the server would answer it: the rows sorted and paged as asked. */
function previewOf(url: URL) {
  const rows = [
    { species: 'Adelie', bill_mm: 39.1 },
    { species: 'Gentoo', bill_mm: 46.1 },
    { species: 'Chinstrap', bill_mm: 49.5 },
  ];
  const keys = parseSort(url.searchParams.get('sort'));
  rows.sort((a, b) => {
    for (const key of keys) {
      const column = key.column as keyof (typeof rows)[number];
      const order = a[column] < b[column] ? -1 : a[column] > b[column] ? 1 : 0;
      if (order !== 0) return key.direction === 'asc' ? order : -order;
    }
    return 0;
  });
  const skip = Number(url.searchParams.get('skip'));
  const version = url.searchParams.get('version');
  return {
    version: version === null ? 2 : Number(version),
    columns: COLUMNS,
    rows: rows.slice(skip, skip + 25),
    total: rows.length,
    limit: 25,
    skip,
  };
}

function Location() {
  const location = useLocation();
  return <output aria-label="location">{location.search}</output>;
}

const ROUTES = {
  '/datacollections/d1/preview': previewOf,
  '/datacollections/d1/summary': {
    version: 2,
    rows: 3,
    columns: [
      {
        name: 'species',
        type: 'string',
        count: 3,
        nulls: 0,
        distinct: 3,
        min: 'Adelie',
        max: 'Gentoo',
        mean: null,
        std: null,
        non_finite: 0,
      },
      {
        name: 'bill_mm',
        type: 'double',
        count: 3,
        nulls: 0,
        distinct: 3,
        min: 39.1,
        max: 49.5,
        mean: 44.9,
        std: 5.3141,
        non_finite: 1,
      },
    ],
  },
  '/datacollections/d1/values/species': {
    version: 2,
    column: 'species',
    values: [
      { value: 'Adelie', count: 2 },
      { value: null, count: 1 },
    ],
    truncated: true,
    total_rows: 4,
  },
  '/datacollections/d1/versions': {
    items: [
      {
        version: 2,
        timestamp: '2026-01-02T00:00:00.000Z',
        operation: 'MERGE',
        rows: 1,
        files_added: 1,
        files_removed: 0,
      },
      {
        version: 1,
        timestamp: '2026-01-01T00:00:00.000Z',
        operation: 'WRITE',
        rows: 2,
        files_added: 1,
        files_removed: 0,
      },
    ],
    total: 2,
    limit: 20,
    skip: 0,
  },
};

function renderExplorer(entry: string, calls: string[] = []) {
  return renderWith(
    ROUTES,
    <>
      <DataExplorer collection={COLLECTION} canEdit={false} />
      <Location />
    </>,
    calls,
    [entry],
  );
}

const location = () => screen.getByLabelText('location').textContent ?? '';
const previewCalls = (calls: string[]) => calls.filter((call) => call.startsWith('GET /datacollections/d1/preview'));
const firstColumn = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[0]?.textContent);

describe('data explorer', () => {
  it('opens the sort of a shared link, and sorts by a clicked header from the first page', async () => {
    const calls: string[] = [];
    renderExplorer('/projects/p1?dc=d1&sort=species:desc&page=1', calls);
    const table = await screen.findByRole('table', { name: 'Preview of measurements' });
    expect(previewCalls(calls)[0]).toBe('GET /datacollections/d1/preview?limit=25&skip=0&sort=species%3Adesc');
    expect(firstColumn(table)).toEqual(['Gentoo', 'Chinstrap', 'Adelie']);
    const species = screen.getByRole('columnheader', { name: /species/ });
    expect(species.getAttribute('aria-sort')).toBe('descending');

    fireEvent.click(screen.getByRole('button', { name: 'Sort by bill_mm' }));
    await waitFor(() => expect(location()).toBe('?dc=d1&sort=bill_mm%3Aasc'));
    await waitFor(() => expect(firstColumn(table)).toEqual(['Adelie', 'Gentoo', 'Chinstrap']));
    expect(species.getAttribute('aria-sort')).toBeNull();

    // Shift-click adds a second key; a plain click on a sorted column turns it.
    fireEvent.click(screen.getByRole('button', { name: 'Sort by species' }), { shiftKey: true });
    await waitFor(() => expect(location()).toBe('?dc=d1&sort=bill_mm%3Aasc%2Cspecies%3Aasc'));
    fireEvent.click(screen.getByRole('button', { name: 'Sort by bill_mm' }));
    await waitFor(() => expect(location()).toBe('?dc=d1&sort=bill_mm%3Adesc'));
    await waitFor(() => expect(firstColumn(table)).toEqual(['Chinstrap', 'Gentoo', 'Adelie']));
    expect(previewCalls(calls).at(-1)).toBe('GET /datacollections/d1/preview?limit=25&skip=0&sort=bill_mm%3Adesc');
  });

  it('shows a column’s distinct values with their counts, kept in the address bar until closed', async () => {
    const calls: string[] = [];
    renderExplorer('/projects/p1?dc=d1', calls);
    await screen.findByRole('table', { name: 'Preview of measurements' });
    fireEvent.click(screen.getByRole('button', { name: 'Distinct values of species' }));
    const values = await screen.findByRole('table', { name: 'Values of species' });
    expect(location()).toBe('?dc=d1&values=species');
    const rows = within(values)
      .getAllByRole('row')
      .slice(1)
      .map((row) => row.textContent);
    // Shares are of every row of the table (4), not of the values listed (3).
    expect(rows).toEqual(['Adelie250.0%', '∅125.0%']);
    expect(screen.getByText('The 2 most frequent values; shares are of all 4 rows.')).toBeTruthy();
    expect(calls).toContain('GET /datacollections/d1/values/species?limit=100');
    fireEvent.keyDown(values, { key: 'Escape' });
    await waitFor(() => expect(location()).toBe('?dc=d1'));
  });

  it('shows each column’s type and statistics, and an unknown column’s values as an error', async () => {
    renderExplorer('/projects/p1?dc=d1&view=columns&values=beak');
    const table = await screen.findByRole('table', { name: 'Columns of measurements' });
    const bill = within(table).getByRole('rowheader', { name: 'bill_mm' }).closest('tr') as HTMLElement;
    expect(
      within(bill)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['double', '3', '0', '1', '3', '39.1', '49.5', '44.9', '5.3141', 'Values']);
    expect(screen.getByText('3 rows · 2 columns · version 2')).toBeTruthy();
    // The shared link named a column the table lacks: the drawer says so.
    expect((await screen.findByRole('alert')).textContent).toMatch(/Could not load the values/);
  });

  it('lists the versions and reads the table at an earlier one', async () => {
    const calls: string[] = [];
    renderExplorer('/projects/p1?dc=d1&view=versions', calls);
    const table = await screen.findByRole('table', { name: 'Versions of measurements' });
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((row) => within(row).getByRole('rowheader').textContent),
    ).toEqual(['2latest', '1']);
    fireEvent.click(screen.getByRole('button', { name: 'Browse version 1' }));
    await waitFor(() => expect(location()).toBe('?dc=d1&version=1'));
    await screen.findByText(/^3 rows · version 1/);
    expect(previewCalls(calls).at(-1)).toBe('GET /datacollections/d1/preview?limit=25&skip=0&version=1');
    expect(screen.getByText('Reading version 1')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Back to the latest version' }));
    await waitFor(() => expect(location()).toBe('?dc=d1'));
    await screen.findByText(/^3 rows · version 2/);
  });
});
