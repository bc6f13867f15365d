import { describe, expect, it } from 'vitest';
import { mayEmbed } from '../src/permissions/embedding.js';

describe('who is offered Embed…', () => {
  it('needs a say over the dashboard and the project’s share right', () => {
    expect(mayEmbed({ my_role: 'owner', project_role: 'owner' })).toBe(true);
    expect(mayEmbed({ my_role: 'admin', project_role: 'admin' })).toBe(true);
    expect(mayEmbed({ my_role: 'editor', project_role: 'owner' })).toBe(true);
    // A project editor may edit its dashboards but not publish them (issue 23, finding 4).
    expect(mayEmbed({ my_role: 'editor', project_role: 'editor' })).toBe(false);
    expect(mayEmbed({ my_role: 'owner', project_role: 'viewer' })).toBe(false);
    // A copy's owner who may not open the project.
    expect(mayEmbed({ my_role: 'owner', project_role: null })).toBe(false);
    expect(mayEmbed({ my_role: 'viewer', project_role: 'owner' })).toBe(false);
  });
});
