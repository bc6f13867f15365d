import { Stack, Switch, Textarea } from '@mantine/core';
import type { SectionComponent } from '@service/common';

/** A section's line under its title, and whether a new reader first sees it folded. */
export function SectionForm({
  section,
  onChange,
}: {
  section: SectionComponent;
  onChange: (section: SectionComponent) => void;
}) {
  return (
    <Stack gap="sm">
      <Textarea
        label="Description"
        placeholder="optional: a line under the title"
        autosize
        minRows={1}
        maxRows={4}
        value={section.description ?? ''}
        onChange={(event) => {
          const { description: _, ...rest } = section;
          const description = event.currentTarget.value;
          onChange(description === '' ? rest : { ...rest, description });
        }}
      />
      <Switch
        label="Folded for a new reader"
        description="Each reader's own choice is kept in their browser."
        checked={section.collapsed ?? false}
        onChange={(event) => {
          const { collapsed: _, ...rest } = section;
          onChange(event.currentTarget.checked ? { ...rest, collapsed: true } : rest);
        }}
      />
    </Stack>
  );
}
