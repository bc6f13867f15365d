import { MultiSelect, NumberInput, Stack } from '@mantine/core';
import { DEFAULT_GALLERY_PAGE, IMAGE_COLUMNS, type ImageComponent, type TableColumn } from '@service/common';

/** Columns every image collection has that make no caption (the image itself shows them). */
const NOT_CAPTIONS = new Set<string>([IMAGE_COLUMNS.id, IMAGE_COLUMNS.error, '_run_id']);

/** A gallery's fields (docs/dashboards.md "Images"): its captions and thumbnails per page. */
export function ImageForm({
  image,
  columns,
  onChange,
}: {
  image: ImageComponent;
  columns: readonly TableColumn[] | undefined;
  onChange: (image: ImageComponent) => void;
}) {
  const names = (columns ?? []).map((column) => column.name).filter((name) => !NOT_CAPTIONS.has(name));
  return (
    <Stack gap="sm">
      <MultiSelect
        label="Captions"
        description="Columns written under each thumbnail (the path when none is picked)"
        data={names}
        value={image.caption_columns ?? []}
        maxValues={5}
        searchable
        onChange={(value) => {
          const next = { ...image };
          if (value.length > 0) next.caption_columns = value;
          else delete next.caption_columns;
          onChange(next);
        }}
      />
      <NumberInput
        label="Thumbnails per page"
        min={1}
        max={200}
        value={image.page_size}
        onChange={(value) =>
          onChange({ ...image, page_size: typeof value === 'number' ? value : DEFAULT_GALLERY_PAGE })
        }
      />
    </Stack>
  );
}
