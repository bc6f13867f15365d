import { Button, Group, SegmentedControl } from '@mantine/core';
import type { FigureComponent } from '@service/common';

/**
 * The reader's controls of a map's view (docs/dashboards.md "Maps"): the wheel zooms either map
 * and a drag moves a choropleth; on a point map a drag brushes a rectangle (the filter) or, once
 * "Move" is chosen, moves the map. "Reset view" draws the whole world again; a filter stays.
 */
export function MapControls({
  component,
  moving,
  onMoving,
  onReset,
}: {
  component: FigureComponent;
  /** Whether a drag over a point map moves it (else it brushes). */
  moving: boolean;
  onMoving: (moving: boolean) => void;
  onReset: () => void;
}) {
  const name = component.title || 'the map';
  return (
    // Room on the right for the cell's menu.
    <Group justify="flex-end" gap="xs" pr={28} mb={4}>
      {component.chart === 'point_map' && (
        <SegmentedControl
          size="xs"
          aria-label={`What a drag does on ${name}`}
          data={[
            { value: 'select', label: 'Select area' },
            { value: 'move', label: 'Move' },
          ]}
          value={moving ? 'move' : 'select'}
          onChange={(value) => onMoving(value === 'move')}
        />
      )}
      <Button size="compact-xs" variant="default" aria-label={`Reset view of ${name}`} onClick={onReset}>
        Reset view
      </Button>
    </Group>
  );
}
