import { Button, Group, Paper, Stack, Text } from '@mantine/core';
import { type DragEvent, useRef, useState } from 'react';
import { ACCEPTED_EXTENSIONS } from './plan.js';

/**
 * Files by drag-and-drop or the system's picker (several at once). A plain file input behind a
 * button: the picker stays keyboard-reachable, and no drop-zone library is needed for it.
 */
export function FilePicker({ onFiles, compact = false }: { onFiles: (files: File[]) => void; compact?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const take = (list: FileList | null) => {
    const files = list === null ? [] : [...list];
    if (files.length > 0) onFiles(files);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    take(event.dataTransfer.files);
  };
  return (
    <Paper
      withBorder
      radius="md"
      p={compact ? 'sm' : 'xl'}
      onDragOver={(event: DragEvent) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      style={{
        borderStyle: 'dashed',
        borderWidth: 2,
        background: over ? 'var(--mantine-color-blue-light)' : undefined,
      }}
    >
      <Stack align="center" gap="xs">
        {!compact && (
          <Text ta="center">Drop CSV, TSV, Parquet or JSON files here, one or several of the same kind.</Text>
        )}
        <Group gap="xs">
          <Button
            variant={compact ? 'light' : 'filled'}
            size={compact ? 'xs' : 'sm'}
            onClick={() => input.current?.click()}
          >
            {compact ? 'Choose other files…' : 'Choose files…'}
          </Button>
        </Group>
        <input
          ref={input}
          type="file"
          multiple
          accept={ACCEPTED_EXTENSIONS}
          hidden
          aria-label="Files to add"
          data-testid="add-data-files"
          onChange={(event) => {
            take(event.currentTarget.files);
            event.currentTarget.value = '';
          }}
        />
      </Stack>
    </Paper>
  );
}
