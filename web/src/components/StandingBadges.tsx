import { Badge, Group } from '@mantine/core';
import type { Project } from '@service/common';

/**
 * "public" when everyone may read the thing, and the caller's own role when it says more than that:
 * a visitor of a public project is shown "public" once, not "public public".
 */
export function StandingBadges({ isPublic, role }: { isPublic: boolean; role: Project['my_role'] }) {
  return (
    <Group gap={6} wrap="wrap">
      {isPublic && <Badge variant="outline">public</Badge>}
      {role !== null && role !== 'public' && (
        <Badge variant="light" title="Your role">
          {role}
        </Badge>
      )}
    </Group>
  );
}

/** Who owns a project or dashboard, as far as the caller may know: names for members, a count for others. */
export function ownersText(permissions: Project['permissions']): string {
  const { owners } = permissions;
  const named = owners.flatMap((owner) => (owner.email ? [owner.email] : []));
  if (named.length > 0) return `Owners: ${named.join(', ')}`;
  if (owners.length === 0) return 'No owner';
  return `${owners.length} owner${owners.length === 1 ? '' : 's'} (names are shown to members)`;
}
