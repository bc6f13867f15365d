import { Group, Loader, Pagination, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatCount } from '../format/number.js';

/*
 * What a paged component (a table, a gallery) shows around its page: above it, how many items
 * match and whether new ones are on their way; below it, the page picker.
 */

/**
 * Above a page: "1,234 rows" (or images…), what the component adds beside the count (`start`) and
 * at the end (`end`), and "Updating" while the dashboard's data or another page is on its way.
 */
export function PagingHeader({
  label,
  total,
  noun,
  updating,
  start,
  end,
}: {
  /** The component's title, naming its "Updating" status. */
  label: string;
  total: number;
  /** What is counted, plural ("rows", "images"). */
  noun: string;
  updating: boolean;
  start?: ReactNode;
  end?: ReactNode;
}) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap">
      <Group gap="xs">
        <Text size="sm" c="dimmed">
          {formatCount(total)} {noun}
        </Text>
        {start}
      </Group>
      <Group gap="xs" wrap="nowrap">
        {updating && <Loader size="xs" role="status" aria-label={`Updating ${label}`} />}
        {end}
      </Group>
    </Group>
  );
}

/** The page picker under a page, when there is more than one page of `pageSize`. */
export function PagePicker({
  label,
  total,
  pageSize,
  page,
  onChange,
}: {
  label: string;
  total: number;
  pageSize: number;
  page: number;
  onChange: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return null;
  return <Pagination size="sm" total={pages} value={page} onChange={onChange} aria-label={`${label} pages`} />;
}
