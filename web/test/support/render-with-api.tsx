// Shared by the jsdom component tests: Mantine's browser needs, and a render with the app's providers.
import { MantineProvider } from '@mantine/core';
import type { Capabilities } from '@service/common';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeAll } from 'vitest';
import { ApiClient, TokenStore } from '../../src/api/client.js';
import { ApiProvider, AuthProvider } from '../../src/auth/session.js';
import { theme } from '../../src/theme.js';
import { installMantineShims } from './jsdom.js';

beforeAll(installMantineShims);
afterEach(() => cleanup());

const CAPABILITIES: Capabilities = {
  version: '0.1.0',
  app_name: 'Pipeline Dashboards',
  auth_mode: 'single_user',
  features: ['jobs', 'ingestion.browser_trigger'],
  auth: {
    registration: false,
    password_login: false,
    oauth: false,
    temporary_users: false,
    access_code_required: false,
    temporary_user_expiry_hours: null,
  },
};
export const ADMIN = {
  user_id: 'u0',
  email: 'single-user@localhost.invalid',
  role: 'admin',
  is_temporary: false,
  expires_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
};

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Renders `ui` with the real API client, router, query client and auth provider (single-user
 * mode), the network answered from `routes`: a path's answer, or a function of the request's URL.
 * Every request is recorded in `calls` as `METHOD /path?query`.
 */
export function renderWith(
  routes: Record<string, unknown>,
  ui: React.ReactNode,
  calls: string[] = [],
  initialEntries: string[] = ['/'],
) {
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const path = url.pathname.replace('/service/api/v1', '');
    calls.push(`${init?.method ?? 'GET'} ${path}${url.search}`);
    if (path === '/auth/me') return json(ADMIN);
    if (path in routes) {
      const answer = routes[path];
      return json(typeof answer === 'function' ? answer(url) : answer);
    }
    return json({ type: 'x', title: 'Not Found', status: 404, code: 'not_found' }, 404);
  };
  const api = new ApiClient({ tokens: new TokenStore(null), fetch: fetchImpl });
  return renderWithProviders(ui, { api, capabilities: CAPABILITIES, initialEntries });
}

/** Renders `ui` inside the app's providers (theme, queries without retries, `api`, router, session). */
export function renderWithProviders(
  ui: React.ReactNode,
  options: { api: ApiClient; capabilities: Capabilities; initialEntries?: string[] },
) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider theme={theme}>
      <QueryClientProvider client={queryClient}>
        <ApiProvider client={options.api}>
          <MemoryRouter initialEntries={options.initialEntries ?? ['/']}>
            <AuthProvider capabilities={options.capabilities}>{() => ui}</AuthProvider>
          </MemoryRouter>
        </ApiProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}
