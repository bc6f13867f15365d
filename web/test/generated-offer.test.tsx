// @vitest-environment jsdom
import type { Dashboard, GeneratedVersion } from '@service/common';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiClient, TokenStore } from '../src/api/client.js';
import { GeneratedOffer } from '../src/dashboard/GeneratedOffer.js';
import { capabilitiesFor } from './support/fixtures.js';
import { json, renderWithProviders } from './support/render-with-api.js';

/**
 * The "new generated version available" notice (docs/templates.md "Re-running"): shown to editors of
 * a generated dashboard a person edited, with the offer to look at, apply or dismiss.
 */
const DASHBOARD: Dashboard = {
  dashboard_id: 'd1',
  project_id: 'p1',
  title: 'Our river samples',
  description: '',
  is_public: false,
  permissions: { owners: [], editors: [], viewers: [] },
  my_role: 'editor',
  project_role: 'editor',
  tabs: [],
  colors: [],
  layout: [],
  components: [{ component_id: 'note', type: 'text', markdown: 'Mine' }],
  created_by: null,
  created_at: '2026-11-27T00:00:00Z',
  updated_at: '2026-11-27T00:00:00Z',
};

const OFFERED: GeneratedVersion = {
  dashboard_id: 'd1',
  generated_from: 'nf-core/ampliseq: nf-core/ampliseq',
  edited: true,
  offer: {
    template_id: 'nf-core/ampliseq/2.16.0',
    offered_at: '2026-11-27T12:00:00Z',
    title: 'nf-core/ampliseq',
    description: '',
    tabs: [],
    layout: [],
    components: [
      { component_id: 'note', type: 'text', markdown: 'Mine' },
      { component_id: 'rerun_note', type: 'text', title: 'Second run', markdown: 'New' },
    ],
    changes: {
      created: false,
      restored_from: null,
      title_changed: true,
      description_changed: false,
      components_added: ['rerun_note'],
      components_removed: [],
      components_changed: [],
      layout_changed: false,
      tabs_changed: false,
      colors_changed: false,
    },
  },
};

function renderOffer(dashboard: Dashboard, generated: GeneratedVersion) {
  const asked: string[] = [];
  let current = generated;
  const fetchImpl: typeof fetch = async (input, init) => {
    const path = new URL(String(input), 'http://localhost').pathname.replace('/service/api/v1', '');
    asked.push(`${init?.method ?? 'GET'} ${path}`);
    if (path === '/auth/me') return json({});
    if (path === '/dashboards/d1/generated') return json(current);
    if (path === '/dashboards/d1/generated/apply') {
      current = { ...generated, edited: false, offer: null };
      return json({ ...dashboard, title: 'nf-core/ampliseq' });
    }
    if (path === '/dashboards/d1/generated/offer') {
      current = { ...generated, offer: null };
      return new Response(null, { status: 204 });
    }
    return json({ type: 'x', title: 'Not Found', status: 404, code: 'not_found' }, 404);
  };
  const api = new ApiClient({ tokens: new TokenStore(null), fetch: fetchImpl });
  renderWithProviders(<GeneratedOffer dashboard={dashboard} />, { api, capabilities: capabilitiesFor('single_user') });
  return asked;
}

describe('a generated version on offer', () => {
  it('is shown, looked at, and applied', async () => {
    const asked = renderOffer(DASHBOARD, OFFERED);
    const notice = await screen.findByRole(
      'status',
      { name: /new generated version of this dashboard/ },
      { timeout: 30_000 },
    );
    expect(notice.textContent).toContain('nf-core/ampliseq/2.16.0');
    fireEvent.click(within(notice).getByRole('button', { name: 'Look at the new version' }));
    const shown = within(notice).getByRole('region', { name: 'The new generated version, read-only' });
    expect(shown.textContent).toContain('Title changed · Added rerun_note');
    expect(within(shown).getByText('Second run')).toBeTruthy();
    fireEvent.click(within(notice).getByRole('button', { name: 'Apply the new version' }));
    await waitFor(() => expect(screen.queryByRole('status', { name: /new generated version/ })).toBeNull());
    expect(asked).toContain('POST /dashboards/d1/generated/apply');
  });

  it('is dismissed with Keep mine', async () => {
    const asked = renderOffer(DASHBOARD, OFFERED);
    const notice = await screen.findByRole(
      'status',
      { name: /new generated version of this dashboard/ },
      { timeout: 30_000 },
    );
    fireEvent.click(within(notice).getByRole('button', { name: 'Keep mine' }));
    await waitFor(() => expect(screen.queryByRole('status', { name: /new generated version/ })).toBeNull());
    expect(asked).toContain('DELETE /dashboards/d1/generated/offer');
  });
});
