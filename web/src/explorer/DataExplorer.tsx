import { Alert, Badge, Button, Card, Code, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import type { DataCollection } from '@service/common';
import { DeleteCollectionButton } from '../components/DeleteWithSummary.js';
import { ColumnsView } from './ColumnsView.js';
import { FixTypesButton } from './FixTypes.js';
import { PreviewView } from './PreviewView.js';
import { UploadPanel } from './UploadPanel.js';
import { type ExplorerView, useExplorerState } from './url-state.js';
import { ValuesDrawer } from './ValuesDrawer.js';
import { VersionsView } from './VersionsView.js';

const VIEW_LABELS: Record<ExplorerView, string> = { preview: 'Rows', columns: 'Columns', versions: 'Versions' };

/**
 * A data collection's explorer: its rows (paged, sortable), its columns with statistics, the
 * distinct values of a column and the table's versions, each readable at an earlier version.
 * Loaded lazily: the project page shows it only once a collection is chosen.
 */
export function DataExplorer({ collection, canEdit }: { collection: DataCollection; canEdit: boolean }) {
  const [state, actions] = useExplorerState();
  return (
    <Card withBorder radius="md" component="section" aria-label={`Data collection ${collection.tag}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3}>{collection.tag}</Title>
          <Group gap="xs">
            <Badge variant="light">{collection.format}</Badge>
            {collection.keys && <Badge variant="outline">keys: {collection.keys.join(', ')}</Badge>}
            {canEdit && <FixTypesButton collection={collection} />}
            {canEdit && <DeleteCollectionButton collection={collection} />}
          </Group>
        </Group>
        <Text size="sm">
          Pattern <Code>{collection.pattern}</Code>
        </Text>
        {canEdit && <UploadPanel collection={collection} />}
        {state.version !== null && (
          <Alert color="yellow" title={`Reading version ${state.version}`}>
            <Group justify="space-between">
              <Text size="sm">These are the table’s rows as they were at version {state.version}, not the latest.</Text>
              <Button size="xs" variant="light" onClick={() => actions.browseVersion(null)}>
                Back to the latest version
              </Button>
            </Group>
          </Alert>
        )}
        <Tabs
          value={state.view}
          onChange={(value) => actions.setView((value as ExplorerView | null) ?? 'preview')}
          keepMounted={false}
        >
          <Tabs.List aria-label="Explorer views">
            {(Object.keys(VIEW_LABELS) as ExplorerView[]).map((view) => (
              <Tabs.Tab key={view} value={view}>
                {VIEW_LABELS[view]}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          <Tabs.Panel value="preview" pt="sm">
            <PreviewView collection={collection} state={state} actions={actions} />
          </Tabs.Panel>
          <Tabs.Panel value="columns" pt="sm">
            <ColumnsView collection={collection} state={state} actions={actions} />
          </Tabs.Panel>
          <Tabs.Panel value="versions" pt="sm">
            <VersionsView collection={collection} state={state} actions={actions} />
          </Tabs.Panel>
        </Tabs>
      </Stack>
      <ValuesDrawer collection={collection} state={state} actions={actions} />
    </Card>
  );
}
