// @vitest-environment jsdom
import { type Capabilities, type Project, projectSchema, type User } from '@service/common';
import { useQuery } from '@tanstack/react-query';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiClient, TokenStore } from '../src/api/client.js';
import { signInPlan } from '../src/auth/plan.js';
import { useApi } from '../src/auth/session.js';
import { AdminNavLinks, adminPagesVisible } from '../src/components/AdminNav.js';
import { PermissionsPanel } from '../src/components/PermissionsPanel.js';
import {
  addMember,
  changeRole,
  draftFromProject,
  isDirty,
  placeErrors,
  removeMember,
  toRequest,
} from '../src/permissions/draft.js';
import { capabilitiesFor } from './support/fixtures.js';
import { json, renderWithProviders } from './support/render-with-api.js';

const OWNER: User = {
  user_id: 'u-owner',
  email: 'owner@example.org',
  role: 'user',
  is_temporary: false,
  expires_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
};

function project(overrides: Partial<Project> = {}): Project {
  return {
    project_id: 'p1',
    name: 'Survey',
    description: '',
    is_public: false,
    permissions: {
      owners: [{ user_id: 'u-owner', email: 'owner@example.org' }],
      editors: [{ user_id: 'u-editor', email: 'editor@example.org' }],
      viewers: [],
    },
    my_role: 'owner',
    created_by: 'u-owner',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

interface Call {
  method: string;
  path: string;
  body: unknown;
}

/** Renders `ui` signed in as `user`; `answer` plays the server for every call but `/auth/me`. */
function renderSignedIn(
  ui: React.ReactNode,
  options: { user: User; mode?: Capabilities['auth_mode']; answer?: (call: Call) => Response; calls?: Call[] },
) {
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const call = {
      method: init?.method ?? 'GET',
      path: url.pathname.replace('/service/api/v1', ''),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : null,
    };
    if (call.path === '/auth/me') return json(options.user);
    options.calls?.push(call);
    return (
      options.answer?.(call) ?? json({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' }, 404)
    );
  };
  const tokens = new TokenStore(null);
  tokens.set({ access_token: 'a', refresh_token: 'r', user: options.user });
  const api = new ApiClient({ tokens, fetch: fetchImpl });
  return renderWithProviders(ui, { api, capabilities: capabilitiesFor(options.mode ?? 'auth') });
}

/** The panel as the project page holds it: fed from the `['project', id]` query the save updates. */
function SharingOf({ projectId }: { projectId: string }) {
  const api = useApi();
  const loaded = useQuery({
    queryKey: ['project', projectId],
    queryFn: () => api.request(`/projects/${projectId}`, projectSchema),
  });
  return loaded.data ? <PermissionsPanel project={loaded.data} /> : null;
}

describe('permissions draft', () => {
  it('starts from the project, owners first, and sends existing members by id and new ones by email', () => {
    let draft = draftFromProject(project());
    expect(draft.members.map((m) => `${m.role}:${m.email}`)).toEqual([
      'owner:owner@example.org',
      'editor:editor@example.org',
    ]);
    const added = addMember(draft, '  New@Example.org ', 'viewer');
    if ('error' in added) throw new Error(added.error);
    draft = changeRole(added.draft, 1, 'viewer');
    const { body, paths } = toRequest({ ...draft, isPublic: true });
    expect(body).toEqual({
      owners: ['u-owner'],
      editors: [],
      viewers: ['u-editor', 'New@Example.org'],
      is_public: true,
    });
    expect(paths).toEqual(['body.owners[0]', 'body.viewers[0]', 'body.viewers[1]']);
  });

  it('refuses a malformed address and someone already listed, whatever the letter case', () => {
    const draft = draftFromProject(project());
    expect(addMember(draft, 'not-an-email', 'viewer')).toEqual({
      error: 'Enter an email address, like name@example.org.',
    });
    expect(addMember(draft, 'EDITOR@example.org', 'owner')).toEqual({
      error: 'editor@example.org is already listed as editor.',
    });
  });

  it('is dirty only when something really changed', () => {
    const start = project({
      permissions: {
        owners: [{ user_id: 'u-owner', email: 'owner@example.org' }],
        editors: [],
        viewers: [
          { user_id: 'a', email: 'a@example.org' },
          { user_id: 'b', email: 'b@example.org' },
        ],
      },
    });
    const draft = draftFromProject(start);
    expect(isDirty(draft, start)).toBe(false);
    const reordered = { ...draft, members: [...draft.members].reverse() };
    expect(isDirty(reordered, start)).toBe(false);
    expect(isDirty(removeMember(draft, 2), start)).toBe(true);
    expect(isDirty(changeRole(draft, 1, 'editor'), start)).toBe(true);
    expect(isDirty({ ...draft, isPublic: true }, start)).toBe(true);
  });

  it('places field errors beside the member they name and words the others', () => {
    const placed = placeErrors(
      [
        { path: 'body.viewers[1]', message: 'no account "x@example.org"' },
        { path: 'body.owners', message: 'a project needs at least one owner' },
        { path: 'body', message: 'something else' },
      ],
      ['body.editors[0]', 'body.viewers[0]', 'body.viewers[1]'],
    );
    expect([...placed.byMember]).toEqual([[2, 'no account "x@example.org"']]);
    expect(placed.general).toEqual(['Owners: a project needs at least one owner', 'something else']);
  });
});

describe('Sharing panel', () => {
  it('lets an owner add a viewer and make the project public, and saves exactly that', async () => {
    const calls: Call[] = [];
    const saved = project({
      is_public: true,
      updated_at: '2026-01-02T00:00:00.000Z',
      permissions: {
        owners: [{ user_id: 'u-owner', email: 'owner@example.org' }],
        editors: [{ user_id: 'u-editor', email: 'editor@example.org' }],
        viewers: [{ user_id: 'u-new', email: 'new@example.org' }],
      },
    });
    renderSignedIn(<SharingOf projectId="p1" />, {
      user: OWNER,
      calls,
      answer: (call) => json(call.method === 'PUT' ? saved : project()),
    });
    const save = await screen.findByRole('button', { name: 'Save sharing' });
    expect(save.hasAttribute('disabled')).toBe(true);
    fireEvent.change(screen.getByRole('textbox', { name: 'Add a person by email' }), {
      target: { value: 'new@example.org' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Add' }));
    fireEvent.click(screen.getByRole('switch', { name: /^Public/ }));
    expect(save.hasAttribute('disabled')).toBe(false);
    fireEvent.click(save);
    await screen.findByText('Sharing saved.');
    expect(calls.filter((call) => call.method !== 'GET')).toEqual([
      {
        method: 'PUT',
        path: '/projects/p1/permissions',
        body: { owners: ['u-owner'], editors: ['u-editor'], viewers: ['new@example.org'], is_public: true },
      },
    ]);
    // The saved member is now a known account: no "new" mark, nothing left to save.
    const row = screen.getByRole('row', { name: /new@example.org/ });
    expect(within(row).queryByText('new')).toBeNull();
    expect(screen.getByRole('button', { name: 'Save sharing' }).hasAttribute('disabled')).toBe(true);
  });

  it('shows the server’s refusal beside the person it is about, and the rest in the alert', async () => {
    renderSignedIn(<SharingOf projectId="p1" />, {
      user: OWNER,
      answer: (call) =>
        call.method === 'GET'
          ? json(project())
          : json(
              {
                type: 'about:blank',
                title: 'Bad Request',
                status: 400,
                code: 'validation_failed',
                detail: 'some members are unknown or listed twice',
                errors: [
                  { path: 'body.viewers[0]', message: 'no account "ghost@example.org"' },
                  { path: 'body.owners', message: 'a project needs at least one owner' },
                ],
              },
              400,
            ),
    });
    fireEvent.change(await screen.findByRole('textbox', { name: 'Add a person by email' }), {
      target: { value: 'ghost@example.org' },
    });
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'Add a person by email' }), { key: 'Enter' });
    fireEvent.click(screen.getByRole('button', { name: 'Save sharing' }));
    const alert = await screen.findByRole('alert', { name: /Sharing was not saved/ });
    expect(alert.textContent).toContain('some members are unknown or listed twice');
    expect(alert.textContent).toContain('Owners: a project needs at least one owner');
    const row = screen.getByRole('row', { name: /ghost@example.org/ });
    expect(within(row).getByRole('alert').textContent).toBe('no account "ghost@example.org"');
    // Editing the draft again clears the stale refusal.
    fireEvent.click(screen.getByRole('button', { name: 'Remove ghost@example.org' }));
    await waitFor(() => expect(screen.queryByRole('alert', { name: /Sharing was not saved/ })).toBeNull());
  });

  it('warns an owner who is about to give up sharing', () => {
    renderSignedIn(<PermissionsPanel project={project()} />, { user: OWNER });
    expect(screen.queryByText('You are no longer an owner in this draft')).toBeNull();
    fireEvent.change(screen.getByRole('combobox', { name: 'Role of owner@example.org' }), {
      target: { value: 'editor' },
    });
    expect(screen.getByText('You are no longer an owner in this draft')).toBeTruthy();
  });

  it('is a read-only list for editors and viewers', () => {
    for (const role of ['editor', 'viewer', 'public'] as const) {
      const { unmount } = renderSignedIn(<PermissionsPanel project={project({ my_role: role })} />, {
        user: { ...OWNER, user_id: 'u-editor', email: 'editor@example.org' },
      });
      expect(screen.getByRole('list', { name: 'Members' }).textContent).toContain('owner@example.org');
      expect(screen.queryByRole('button', { name: 'Save sharing' })).toBeNull();
      expect(screen.queryByRole('textbox')).toBeNull();
      expect(screen.queryByRole('switch')).toBeNull();
      unmount();
    }
  });

  it('names no one to the public of a public project, whose answer carries no emails', () => {
    const permissions = { owners: [{ user_id: 'u-owner' }], editors: [], viewers: [{ user_id: 'u-viewer' }] };
    renderSignedIn(<PermissionsPanel project={project({ my_role: 'public', is_public: true, permissions })} />, {
      user: { ...OWNER, user_id: 'u-other', email: 'other@example.org' },
    });
    const list = screen.getByRole('list', { name: 'Members' });
    expect(list.textContent).toContain('A member');
    expect(list.textContent).toContain('viewer');
    expect(list.textContent).not.toContain('@');
    expect(screen.getByText(/Members see who the members are\./)).toBeTruthy();
  });
});

describe('admin pages', () => {
  it('exist only for admins in auth mode', () => {
    const admin = { role: 'admin' as const };
    const user = { role: 'user' as const };
    expect(adminPagesVisible(signInPlan(capabilitiesFor('auth')), admin)).toBe(true);
    expect(adminPagesVisible(signInPlan(capabilitiesFor('auth')), user)).toBe(false);
    expect(adminPagesVisible(signInPlan(capabilitiesFor('auth')), null)).toBe(false);
    for (const mode of ['single_user', 'public', 'demo'] as const) {
      expect(adminPagesVisible(signInPlan(capabilitiesFor(mode)), admin)).toBe(false);
    }
  });

  it('appear in the navigation for an admin only', async () => {
    const first = renderSignedIn(<AdminNavLinks />, { user: { ...OWNER, role: 'admin' } });
    await screen.findByRole('link', { name: 'Users' });
    expect(screen.getByRole('link', { name: 'Audit log' }).getAttribute('href')).toBe('/admin/audit');
    first.unmount();
    renderSignedIn(<AdminNavLinks />, { user: OWNER });
    expect(screen.queryByRole('link', { name: 'Users' })).toBeNull();
  });
});
