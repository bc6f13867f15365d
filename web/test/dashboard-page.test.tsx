// @vitest-environment jsdom
import type { Dashboard } from '@service/common';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { ApiClient, TokenStore } from '../src/api/client.js';
import { describeAsOf, versionChoices } from '../src/dashboard/VersionPicker.js';
import { DashboardPage } from '../src/pages/DashboardPage.js';
import { capabilitiesFor } from './support/fixtures.js';
import { json, renderWithProviders } from './support/render-with-api.js';

const DASHBOARD: Dashboard = {
  dashboard_id: 'd1',
  project_id: 'p1',
  title: 'Penguins',
  description: '',
  is_public: false,
  permissions: { owners: [], editors: [], viewers: [] },
  my_role: 'owner',
  project_role: 'owner',
  tabs: [],
  colors: [],
  layout: [],
  components: [
    {
      component_id: 'species',
      type: 'interactive',
      title: 'Species',
      data_collection_id: 'dc1',
      widget: 'select',
      column: 'species',
    },
    {
      component_id: 'male',
      type: 'interactive',
      title: 'Male',
      data_collection_id: 'dc1',
      widget: 'switch',
      column: 'male',
    },
    {
      component_id: 'name',
      type: 'interactive',
      title: 'Name',
      data_collection_id: 'dc1',
      widget: 'search',
      column: 'name',
    },
    { component_id: 'count', type: 'card', title: 'Penguins counted', data_collection_id: 'dc1', agg: 'count' },
    { component_id: 'mass', type: 'card', title: 'Mean mass', data_collection_id: 'dc1', column: 'mass', agg: 'mean' },
    { component_id: 'rows', type: 'table', title: 'Rows', data_collection_id: 'dc1', page_size: 25, sort: [] },
  ],
  created_by: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

const OPTIONS = {
  species: {
    options: [
      { value: 'Adelie', count: 2 },
      { value: 'Gentoo', count: 1 },
    ],
    truncated: false,
  },
  male: {
    options: [
      { value: true, count: 2 },
      { value: false, count: 1 },
    ],
    truncated: false,
  },
  name: { options: [], truncated: false },
};
const PAGE = {
  version: 3,
  columns: [{ name: 'species', type: 'string', nullable: true, description: null }],
  rows: [{ species: 'Adelie' }],
  total: 1,
  limit: 25,
  skip: 0,
};

const VERSIONS = {
  collections: [
    {
      data_collection_id: 'dc1',
      name: 'penguins',
      versions: [1, 0].map((version) => ({
        version,
        timestamp: `2026-11-2${version + 1}T10:00:00.000Z`,
        operation: 'WRITE',
        rows: 3,
        files_added: 1,
        files_removed: 0,
      })),
    },
  ],
};

/** One answer of the data route in the making: the test writes its lines when it wants them to arrive. */
class Stream {
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly response = new Response(
    new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
    }),
    { headers: { 'content-type': 'application/x-ndjson' } },
  );
  private closed = false;
  aborted = false;
  constructor(readonly body: unknown) {}
  line(value: unknown) {
    this.controller.enqueue(new TextEncoder().encode(`${JSON.stringify(value)}\n`));
  }
  end() {
    if (!this.closed) this.controller.close();
    this.closed = true;
  }
  /** As fetch does when its request is aborted: the body fails. */
  abort() {
    this.aborted = true;
    if (!this.closed) this.controller.error(new DOMException('aborted', 'AbortError'));
    this.closed = true;
  }
}

function Location() {
  const location = useLocation();
  return <output aria-label="location">{decodeURIComponent(location.search)}</output>;
}

function renderDashboard(search: string) {
  const streams: Stream[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const path = url.pathname.replace('/service/api/v1', '');
    if (path === '/auth/me') return json({});
    if (path === '/dashboards/d1') return json(DASHBOARD);
    if (path === '/dashboards/d1/versions') return json(VERSIONS);
    if (path === '/dashboards/d1/data') {
      expect(new Headers(init?.headers).get('accept')).toContain('application/x-ndjson');
      const stream = new Stream(JSON.parse(String(init?.body)));
      init?.signal?.addEventListener('abort', () => stream.abort());
      streams.push(stream);
      return stream.response;
    }
    return json({ type: 'x', title: 'Not Found', status: 404, code: 'not_found' }, 404);
  };
  const api = new ApiClient({ tokens: new TokenStore(null), fetch: fetchImpl });
  renderWithProviders(
    <Routes>
      <Route
        path="/dashboards/:dashboardId"
        element={
          <>
            <DashboardPage />
            <Location />
          </>
        }
      />
    </Routes>,
    { api, capabilities: capabilitiesFor('single_user'), initialEntries: [`/dashboards/d1${search}`] },
  );
  return streams;
}

const cell = (name: string) => screen.getByRole('region', { name });
const location = () => screen.getByRole('status', { name: 'location' }).textContent;

describe('the dashboard page', () => {
  it('asks for the filters of the address bar, dropping stale ones, and draws each component as its line arrives', async () => {
    const search = `?filters=${encodeURIComponent(
      JSON.stringify([
        { component_id: 'species', value: ['Adelie'] },
        { component_id: 'removed-since', value: ['x'] },
      ]),
    )}`;
    const streams = renderDashboard(search);
    await waitFor(() => expect(streams).toHaveLength(1));
    const [first] = streams as [Stream];
    expect(first.body).toEqual({ filters: [{ component_id: 'species', value: ['Adelie'] }] });
    expect(screen.getByRole('region', { name: 'Active filters' }).textContent).toContain('Species: Adelie');

    first.line({ version: { dc1: 3 } });
    first.line({ component_id: 'count', data: { value: 2, unfiltered_value: 3 } });
    await within(cell('Penguins counted')).findByText('2');
    // The others are still on their way, each with its own loader.
    expect(within(cell('Mean mass')).getByLabelText('Loading Mean mass')).toBeTruthy();
    expect(within(cell('Rows')).getByLabelText('Loading Rows')).toBeTruthy();
    first.line({
      component_id: 'mass',
      data: { error: { code: 'column_missing', message: 'No column mass', field: 'column' } },
    });
    first.line({ component_id: 'rows', data: PAGE });
    for (const [id, data] of Object.entries(OPTIONS)) first.line({ component_id: id, data });
    first.end();
    // A component that cannot be drawn says so in its cell; the others draw.
    await within(cell('Mean mass')).findByText('No column mass (column)');
    await within(cell('Rows')).findByText('1 rows');
    expect(cell('Penguins counted').getAttribute('data-state')).toBe('ready');
    expect(cell('Mean mass').getAttribute('data-state')).toBe('error');

    // Clear all: one new request without filters; the old numbers stay until the new ones arrive.
    fireEvent.click(screen.getByRole('button', { name: 'Clear all' }));
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(location()).toBe('');
    expect(streams[1]?.body).toEqual({ filters: [] });
    expect(screen.queryByRole('region', { name: 'Active filters' })).toBeNull();
    expect(within(cell('Penguins counted')).getByText('2')).toBeTruthy();
    expect(within(cell('Penguins counted')).getByLabelText('Updating Penguins counted')).toBeTruthy();
    streams[1]?.line({ component_id: 'count', data: { value: 3, unfiltered_value: 3 } });
    await within(cell('Penguins counted')).findByText('3');
  });

  it('writes widget changes to the address bar, one request each, the previous one aborted', async () => {
    const streams = renderDashboard('');
    await waitFor(() => expect(streams).toHaveLength(1));
    const [first] = streams as [Stream];
    for (const [id, data] of Object.entries(OPTIONS)) first.line({ component_id: id, data });
    first.end();

    fireEvent.click(await screen.findByRole('switch', { name: 'Male (2)' }));
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(location()).toBe('?filters=[{"component_id":"male","value":true}]');
    expect(screen.getByRole('region', { name: 'Active filters' }).textContent).toContain('Male: yes');

    // Typing waits for a pause, then filters; the request still running for the switch is dropped.
    fireEvent.change(screen.getByRole('searchbox', { name: 'Name' }), { target: { value: 'bis' } });
    await waitFor(() => expect(streams).toHaveLength(3));
    expect(streams[1]?.aborted).toBe(true);
    expect(streams[2]?.body).toEqual({
      filters: [
        { component_id: 'male', value: true },
        { component_id: 'name', value: 'bis' },
      ],
    });
    // Removing a chip clears its widget too.
    fireEvent.click(screen.getByRole('button', { name: 'Remove filter Name: “bis”' }));
    await waitFor(() => expect(location()).toBe('?filters=[{"component_id":"male","value":true}]'));
    expect((screen.getByRole('searchbox', { name: 'Name' }) as HTMLInputElement).value).toBe('');
  });
});

describe('time travel', () => {
  it('lists the commits newest first, and reads versions by collection from a shared link', () => {
    expect(versionChoices(VERSIONS).map((choice) => choice.value)).toEqual([
      '2026-11-22T10:00:00.000Z',
      '2026-11-21T10:00:00.000Z',
    ]);
    expect(versionChoices(VERSIONS)[1]?.label).toMatch(/ · penguins v0 \(write\)$/);
    expect(describeAsOf({ dc1: 0, other: 2 }, VERSIONS)).toBe('penguins v0, other v2');
  });

  it('asks for the data as of the address bar, says so, and goes back to live', async () => {
    const streams = renderDashboard('?as_of=2026-11-21T10:00:00.000Z&filters=%5B%5D');
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(streams[0]?.body).toEqual({ filters: [], as_of: '2026-11-21T10:00:00.000Z' });
    const banner = screen.getByRole('status', { name: 'Time travel' });
    expect(banner.textContent).toMatch(/Viewing the data as of 2026-11-2\d \d\d:\d\d/);
    fireEvent.click(within(banner).getByRole('button', { name: 'Back to live' }));
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(streams[1]?.body).toEqual({ filters: [] });
    expect(location()).toBe('');
    expect(screen.queryByRole('status', { name: 'Time travel' })).toBeNull();
  });
});
