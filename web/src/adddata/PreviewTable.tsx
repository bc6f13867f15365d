import { Badge, NativeSelect, Stack, Table, Text } from '@mantine/core';
import { COLUMN_TYPES, type ColumnType, type FilePreview } from '@service/common';
import { formatCell } from '../explorer/format.js';

const TYPE_OPTIONS = Object.keys(COLUMN_TYPES);

/**
 * The first rows as the table would hold them, each column headed by its type: a choice for CSV
 * and TSV (what the table will read it as), the file's own type otherwise. Missing values show ∅.
 */
export function PreviewTable({
  preview,
  editable,
  onType,
  chosen,
  stale,
}: {
  preview: FilePreview;
  /** The types picked, shown at once while the preview is read again with them. */
  chosen: Record<string, ColumnType>;
  editable: boolean;
  onType: (column: string, type: ColumnType) => void;
  stale: boolean;
}) {
  if (preview.columns.length === 0) return <Text c="dimmed">The file is empty: there is nothing to show.</Text>;
  return (
    <Table.ScrollContainer minWidth={preview.columns.length * 140} maxHeight={420}>
      <Table
        striped
        withTableBorder
        withColumnBorders
        stickyHeader
        aria-label="Preview of the first rows"
        aria-busy={stale}
        style={{ opacity: stale ? 0.6 : 1 }}
      >
        <Table.Thead>
          <Table.Tr>
            {preview.columns.map((column) => (
              <Table.Th key={column.name} style={{ verticalAlign: 'top' }}>
                <Stack gap={4}>
                  <Text span fw={600} size="sm">
                    {column.name}
                  </Text>
                  {editable && column.type !== null ? (
                    <NativeSelect
                      size="xs"
                      aria-label={`Type of ${column.name}`}
                      data={TYPE_OPTIONS}
                      value={chosen[column.name] ?? column.type}
                      onChange={(event) => onType(column.name, event.currentTarget.value as ColumnType)}
                    />
                  ) : (
                    <Badge variant="light" size="sm" title={column.engine_type}>
                      {column.type ?? column.engine_type}
                    </Badge>
                  )}
                </Stack>
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {preview.rows.map((row, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: preview rows have no identity of their own.
            <Table.Tr key={index}>
              {preview.columns.map((column) => (
                <Table.Td key={column.name}>
                  <span className="table-cell-value">{formatCell(row[column.name])}</span>
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
