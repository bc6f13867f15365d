import { Button, CloseButton, Group, Paper, Text } from '@mantine/core';
import type { DashboardComponent, DashboardFilter } from '@service/common';
import { filterChips } from './chips.js';

/** The active filters as removable chips ("Species: Adelie, Gentoo ×"), with "Clear all". */
export function FilterChips({
  filters,
  components,
  onRemove,
  onClear,
}: {
  filters: readonly DashboardFilter[];
  components: readonly DashboardComponent[];
  onRemove: (componentId: string) => void;
  onClear: () => void;
}) {
  const chips = filterChips(filters, components);
  if (chips.length === 0) return null;
  return (
    <Group gap="xs" role="region" aria-label="Active filters">
      {chips.map((chip) => (
        <Paper key={chip.componentId} withBorder radius="xl" px="sm" py={2}>
          <Group gap={4} wrap="nowrap">
            <Text size="sm">{chip.text}</Text>
            <CloseButton
              size="sm"
              aria-label={`Remove filter ${chip.text}`}
              onClick={() => onRemove(chip.componentId)}
            />
          </Group>
        </Paper>
      ))}
      <Button variant="subtle" size="compact-sm" onClick={onClear}>
        Clear all
      </Button>
    </Group>
  );
}
