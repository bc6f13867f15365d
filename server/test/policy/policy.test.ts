import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/policy/actor.js';
import {
  authorize,
  can,
  dashboardResource,
  type ResourceAction,
  roleOn,
  type SharedResource,
} from '../../src/policy/policy.js';

const user = (userId: string, role: 'admin' | 'user' = 'user', isTemporary = false): Actor => ({
  kind: 'user',
  userId,
  role,
  isTemporary,
  sessionId: 's',
});

const actors = {
  admin: user('admin', 'admin'),
  owner: user('owner'),
  editor: user('editor'),
  viewer: user('viewer'),
  other: user('other'),
  temporary: user('temp', 'user', true),
  anonymousAuthMode: { kind: 'anonymous', mayBrowsePublic: false },
  anonymousPublicMode: { kind: 'anonymous', mayBrowsePublic: true },
} satisfies Record<string, Actor>;
type ActorName = keyof typeof actors;

const base = { owners: ['owner'], editors: ['editor'], viewers: ['viewer'] };
const privateResource: SharedResource = { ...base, isPublic: false };
const publicResource: SharedResource = { ...base, isPublic: true };

// Who may do what (docs/architecture.md "Permissions"), written out in full so a change to the policy shows here.
const allowed: Record<'private' | 'public', Record<ResourceAction, ActorName[]>> = {
  private: {
    'resource.read': ['admin', 'owner', 'editor', 'viewer'],
    'resource.edit': ['admin', 'owner', 'editor'],
    'resource.share': ['admin', 'owner'],
    'resource.delete': ['admin', 'owner'],
  },
  public: {
    'resource.read': ['admin', 'owner', 'editor', 'viewer', 'other', 'temporary', 'anonymousPublicMode'],
    'resource.edit': ['admin', 'owner', 'editor'],
    'resource.share': ['admin', 'owner'],
    'resource.delete': ['admin', 'owner'],
  },
};

const failure = (actor: Actor, action: ResourceAction, resource: SharedResource): string | null => {
  try {
    authorize(actor, action, resource);
    return null;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('policy on shared resources', () => {
  for (const visibility of ['private', 'public'] as const) {
    const resource = visibility === 'public' ? publicResource : privateResource;
    for (const action of Object.keys(allowed[visibility]) as ResourceAction[]) {
      for (const name of Object.keys(actors) as ActorName[]) {
        const expected = allowed[visibility][action].includes(name);
        it(`${expected ? 'lets' : 'refuses'} ${name} ${action} on a ${visibility} resource`, () => {
          expect(can(actors[name], action, resource)).toBe(expected);
        });
      }
    }
  }

  it('answers 404 to those who cannot even see the resource, 403 to those who can, 401 to anonymous writers', () => {
    expect(failure(actors.other, 'resource.read', privateResource)).toBe('not_found');
    expect(failure(actors.other, 'resource.edit', privateResource)).toBe('not_found');
    expect(failure(actors.viewer, 'resource.edit', privateResource)).toBe('forbidden');
    expect(failure(actors.editor, 'resource.share', privateResource)).toBe('forbidden');
    expect(failure(actors.other, 'resource.edit', publicResource)).toBe('forbidden');
    expect(failure(actors.anonymousAuthMode, 'resource.read', publicResource)).toBe('unauthenticated');
    expect(failure(actors.anonymousAuthMode, 'resource.read', privateResource)).toBe('unauthenticated');
    expect(failure(actors.anonymousPublicMode, 'resource.read', privateResource)).toBe('not_found');
    expect(failure(actors.anonymousPublicMode, 'resource.edit', publicResource)).toBe('unauthenticated');
    expect(failure(actors.anonymousPublicMode, 'resource.delete', privateResource)).toBe('unauthenticated');
    expect(failure(actors.owner, 'resource.delete', privateResource)).toBeNull();
  });

  it('names the strongest role an actor holds', () => {
    expect(roleOn(actors.admin, privateResource)).toBe('admin');
    expect(roleOn(user('both'), { owners: ['both'], editors: ['both'], viewers: [], isPublic: false })).toBe('owner');
    expect(roleOn(actors.other, privateResource)).toBeNull();
    expect(roleOn(actors.other, publicResource)).toBe('public');
  });
});

describe('policy on dashboards', () => {
  // The dashboard's own members are d-*, its project's are the usual owner/editor/viewer.
  const dashboard: SharedResource = {
    owners: ['d-owner'],
    editors: ['d-editor'],
    viewers: ['d-viewer'],
    isPublic: false,
  };
  const onDashboard = (name: string, project: SharedResource = privateResource) =>
    (['resource.read', 'resource.edit', 'resource.share', 'resource.delete'] as const).filter((action) =>
      can(user(name), action, dashboardResource(dashboard, project)),
    );

  it("gives its own members their roles, and the project's owners and editors the management of it", () => {
    const all = ['resource.read', 'resource.edit', 'resource.share', 'resource.delete'];
    expect(onDashboard('d-owner')).toEqual(all);
    expect(onDashboard('d-editor')).toEqual(['resource.read', 'resource.edit']);
    expect(onDashboard('d-viewer')).toEqual(['resource.read']);
    expect(onDashboard('owner')).toEqual(all);
    expect(onDashboard('editor')).toEqual(all);
    expect(onDashboard('viewer')).toEqual(['resource.read']);
    expect(onDashboard('other')).toEqual([]);
    expect(can(actors.admin, 'resource.delete', dashboardResource(dashboard, privateResource))).toBe(true);
  });

  it('is public when it or its project is, for reading only', () => {
    const publicDashboard = dashboardResource({ ...dashboard, isPublic: true }, privateResource);
    expect(can(actors.anonymousPublicMode, 'resource.read', publicDashboard)).toBe(true);
    expect(can(actors.anonymousAuthMode, 'resource.read', publicDashboard)).toBe(false);
    expect(can(actors.other, 'resource.edit', publicDashboard)).toBe(false);
    // The project stays private: a public dashboard opens nothing else of it.
    expect(can(actors.anonymousPublicMode, 'resource.read', privateResource)).toBe(false);
    expect(can(actors.other, 'resource.read', dashboardResource(dashboard, publicResource))).toBe(true);
  });
});

describe('policy on instance-wide actions', () => {
  it('keeps administration and the audit log to admins, and sessions to signed-in users', () => {
    for (const action of ['users.administer', 'audit.read'] as const) {
      expect(can(actors.admin, action)).toBe(true);
      expect(can(actors.other, action)).toBe(false);
      expect(can(actors.temporary, action)).toBe(false);
      expect(can(actors.anonymousPublicMode, action)).toBe(false);
    }
    for (const action of ['session.read_own', 'magic_link.create', 'resource.create'] as const) {
      expect(can(actors.temporary, action)).toBe(true);
      expect(can(actors.other, action)).toBe(true);
      expect(can(actors.anonymousPublicMode, action)).toBe(false);
    }
    expect(can(actors.anonymousPublicMode, 'resource.list')).toBe(true);
    expect(can(actors.anonymousAuthMode, 'resource.list')).toBe(false);
    expect(can(actors.temporary, 'resource.list')).toBe(true);
    expect(() => authorize(actors.temporary, 'users.administer')).toThrow(
      expect.objectContaining({ code: 'forbidden' }),
    );
    expect(() => authorize(actors.anonymousAuthMode, 'session.read_own')).toThrow(
      expect.objectContaining({ code: 'unauthenticated' }),
    );
  });
});
