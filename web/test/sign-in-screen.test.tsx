// @vitest-environment jsdom
import { MantineProvider } from '@mantine/core';
import type { Capabilities } from '@service/common';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { App } from '../src/App.js';
import { ApiClient, TokenStore } from '../src/api/client.js';
import { ApiProvider } from '../src/auth/session.js';
import { capabilitiesFor } from './support/fixtures.js';
// Also installs Mantine's jsdom shims and the cleanup after each test.
import { ADMIN } from './support/render-with-api.js';

function renderApp(caps: Capabilities, path: string) {
  const fetch = (async (input: RequestInfo | URL) => {
    const url = String(input);
    const body = url.endsWith('/utils/capabilities')
      ? caps
      : url.endsWith('/auth/me')
        ? ADMIN
        : url.includes('/projects')
          ? { items: [], total: 0, limit: 20, skip: 0 }
          : null;
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const api = new ApiClient({ tokens: new TokenStore(null), fetch });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider>
      <QueryClientProvider client={queryClient}>
        <ApiProvider client={api}>
          <MemoryRouter initialEntries={[path]}>
            <App />
          </MemoryRouter>
        </ApiProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

/** Pages are loaded lazily (their own chunks): the first render of one waits for its module. */
const PAGE_LOAD = { timeout: 10_000 };

describe('sign-in screen driven by capabilities', () => {
  it('auth mode sends anonymous visitors to the sign-in card with a Register link', async () => {
    renderApp(capabilitiesFor('auth'), '/projects');
    await screen.findByRole('heading', { name: 'Sign in' }, PAGE_LOAD);
    expect(screen.getByRole('textbox', { name: 'Email' })).toBeTruthy();
    expect(screen.getByLabelText(/^Password/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Register' }).getAttribute('href')).toBe('/auth/register?next=%2Fprojects');
    expect(screen.queryByRole('link', { name: /identity provider/ })).toBeNull();
  });

  it('hides Register when registration is off and the form when only OAuth is allowed', async () => {
    renderApp(capabilitiesFor('auth', { registration: false, password_login: false, oauth: true }), '/auth/sign-in');
    const oauth = await screen.findByRole('link', { name: 'Sign in with your identity provider' }, PAGE_LOAD);
    expect(oauth.getAttribute('href')).toBe('/service/api/v1/auth/oauth/login?next=%2Fhome');
    expect(screen.queryByRole('textbox', { name: 'Email' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Register' })).toBeNull();
  });

  it('shows a readable message for an OAuth refusal', async () => {
    renderApp(capabilitiesFor('auth'), '/auth/sign-in?error=account_disabled');
    const alert = await screen.findByRole('alert', {}, PAGE_LOAD);
    expect(alert.textContent).toContain('This account has been disabled');
  });

  it('single-user mode has no login screen, a badge and no Sign In button', async () => {
    renderApp(capabilitiesFor('single_user'), '/auth/sign-in');
    await screen.findByRole('heading', { name: 'Projects' }, PAGE_LOAD);
    expect(screen.getByText('Single User Mode')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Sign In' })).toBeNull();
    expect(screen.queryByRole('textbox', { name: 'Email' })).toBeNull();
  });

  it('public mode lets anonymous visitors browse public projects with a Sign In button', async () => {
    renderApp(capabilitiesFor('public'), '/projects');
    await screen.findByText('Public Mode');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeTruthy();
    expect(await screen.findByRole('tab', { name: 'Public' }, PAGE_LOAD)).toBeTruthy();
    expect(screen.queryByRole('tab', { name: 'My projects' })).toBeNull();
    await waitFor(() => expect(screen.getByText('There are no public projects.')).toBeTruthy());
  });

  it('a magic-link page without a ticket explains itself and offers a sign-in', async () => {
    renderApp(capabilitiesFor('auth'), '/auth/magic');
    await screen.findByRole('heading', { name: 'Sign-in link not valid' }, PAGE_LOAD);
    expect(screen.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/auth/sign-in?next=%2Fhome');
  });
});
