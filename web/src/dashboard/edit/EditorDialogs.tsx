import { Button, Group, Modal, Stack, Text } from '@mantine/core';

/** Someone else saved in between: reload theirs or overwrite with mine, never silently either. */
export function ConflictDialog({
  opened,
  busy,
  onReload,
  onOverwrite,
  onClose,
}: {
  opened: boolean;
  busy: boolean;
  onReload: () => void;
  onOverwrite: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title="Someone else saved this dashboard" centered>
      <Stack>
        <Text>
          This dashboard was changed and saved by someone else after you started editing. Saving now would replace their
          version with yours.
        </Text>
        <Text size="sm" c="dimmed">
          Reload shows their version and drops your changes. Overwrite saves your version over theirs.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Keep editing
          </Button>
          <Button variant="default" color="red" onClick={onReload} loading={busy}>
            Reload (drop my changes)
          </Button>
          <Button color="red" onClick={onOverwrite} loading={busy}>
            Overwrite with mine
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function DiscardDialog({
  opened,
  onDiscard,
  onClose,
}: {
  opened: boolean;
  onDiscard: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title="Drop your changes?" centered>
      <Text mb="md">The changes made since the last save are lost.</Text>
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose} data-autofocus>
          Keep editing
        </Button>
        <Button color="red" onClick={onDiscard}>
          Drop changes
        </Button>
      </Group>
    </Modal>
  );
}
