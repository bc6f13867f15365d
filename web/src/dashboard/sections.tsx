import { Group, Text, Title, UnstyledButton } from '@mantine/core';
import type { DashboardComponent, LayoutItem, SectionComponent } from '@service/common';
import { useState } from 'react';
import { gridCellStyle } from './layout.js';
import { isFolded, storedSectionChoices, storeSectionChoices } from './section-choices.js';

/**
 * Sections a reader folds (docs/dashboards.md "Sections"). The choice is the reader's, kept in this
 * browser per dashboard: a section the reader never touched shows as its author set it (`collapsed`).
 */

/** The ids of the sections folded now, and the toggle of one. */
export function useFoldedSections(
  dashboardId: string,
  components: readonly DashboardComponent[],
): [ReadonlySet<string>, (sectionId: string) => void] {
  const [choices, setChoices] = useState(() => storedSectionChoices(dashboardId));
  const folded = new Set(
    components
      .filter((component): component is SectionComponent => component.type === 'section')
      .filter((section) => isFolded(choices, section))
      .map((section) => section.component_id),
  );
  const toggle = (sectionId: string) => {
    const next = { ...storedSectionChoices(dashboardId), [sectionId]: !folded.has(sectionId) };
    storeSectionChoices(dashboardId, next);
    setChoices(next);
  };
  return [folded, toggle];
}

/** A section's header row on the dashboard's grid: its title folds and unfolds what it holds. */
export function SectionHeader({
  section,
  item,
  folded,
  hiddenCount,
  onToggle,
}: {
  section: SectionComponent;
  item: LayoutItem;
  folded: boolean;
  /** Components it holds, told while it is folded. */
  hiddenCount: number;
  onToggle: () => void;
}) {
  const style = gridCellStyle(item);
  return (
    <div
      className="dashboard-cell dashboard-section"
      style={style}
      data-section-id={section.component_id}
      data-folded={folded || undefined}
    >
      {/* The accordion pattern: a heading that holds the button, so the section is in the outline. */}
      <Group gap="xs" wrap="nowrap" align="baseline">
        <Title order={2} size="h3">
          <UnstyledButton onClick={onToggle} aria-expanded={!folded} className="dashboard-section-toggle">
            <span aria-hidden="true" className="dashboard-section-chevron">
              {folded ? '▸' : '▾'}
            </span>{' '}
            {section.title}
          </UnstyledButton>
        </Title>
        {folded && hiddenCount > 0 && (
          <Text size="sm" c="dimmed">
            {hiddenCount === 1 ? '1 component' : `${hiddenCount} components`}
          </Text>
        )}
      </Group>
      {section.description && (
        <Text size="sm" c="dimmed" lineClamp={1}>
          {section.description}
        </Text>
      )}
    </div>
  );
}
