import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Card,
  Code,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import {
  type DataCollection,
  dataCollectionListSchema,
  dataCollectionSchema,
  previewAnswerSchema,
  projectSchema,
  type Workflow,
  workflowListSchema,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { IngestionPanel } from '../components/IngestionPanel.js';
import { UploadPanel } from '../components/UploadPanel.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from './ProjectsPage.js';

const PREVIEW_PAGE_SIZE = 25;

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function PreviewTable({ collection, canEdit }: { collection: DataCollection; canEdit: boolean }) {
  const api = useApi();
  const page = usePageParam();
  const preview = useQuery({
    queryKey: ['preview', collection.data_collection_id, page],
    queryFn: ({ signal }) =>
      api.request(`/datacollections/${collection.data_collection_id}/preview`, previewAnswerSchema, {
        query: { limit: PREVIEW_PAGE_SIZE, skip: (page - 1) * PREVIEW_PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  let body: React.ReactNode;
  if (preview.isPending) body = <Loader aria-label="Loading preview" />;
  else if (preview.isError) {
    body = (
      <Alert color="red" role="alert" title="Could not load the preview">
        {errorMessage(preview.error)}
      </Alert>
    );
  } else if (preview.data.columns.length === 0) {
    body = <Text c="dimmed">No data yet: upload or ingest files for this collection.</Text>;
  } else {
    const { columns, rows, total } = preview.data;
    const pages = Math.max(1, Math.ceil(total / PREVIEW_PAGE_SIZE));
    body = (
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {total.toLocaleString()} rows · version {preview.data.version ?? '—'}
        </Text>
        <Table.ScrollContainer minWidth={columns.length * 120} maxHeight={520}>
          <Table striped withTableBorder withColumnBorders stickyHeader aria-label={`Preview of ${collection.tag}`}>
            <Table.Thead>
              <Table.Tr>
                {columns.map((column) => (
                  <Table.Th key={column.name} title={column.description ?? column.type}>
                    {column.name}
                    <Text span size="xs" c="dimmed" ml={4}>
                      {column.type}
                    </Text>
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: preview rows have no identity of their own.
                <Table.Tr key={index}>
                  {columns.map((column) => (
                    <Table.Td key={column.name}>
                      <Text size="sm" ff="monospace" truncate maw={280}>
                        {formatCell(row[column.name])}
                      </Text>
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <UrlPagination pages={pages} label="Preview pages" />
      </Stack>
    );
  }
  return (
    <Card withBorder radius="md" component="section" aria-label={`Data collection ${collection.tag}`}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3}>{collection.tag}</Title>
          <Group gap="xs">
            <Badge variant="light">{collection.format}</Badge>
            {collection.keys && <Badge variant="outline">keys: {collection.keys.join(', ')}</Badge>}
          </Group>
        </Group>
        <Text size="sm">
          Pattern <Code>{collection.pattern}</Code>
        </Text>
        {canEdit && <UploadPanel collection={collection} />}
        {body}
      </Stack>
    </Card>
  );
}

function WorkflowCard({
  workflow,
  selected,
  onSelect,
}: {
  workflow: Workflow;
  selected: string | null;
  onSelect: (collection: DataCollection) => void;
}) {
  const api = useApi();
  const collections = useQuery({
    queryKey: ['datacollections', workflow.workflow_id],
    queryFn: ({ signal }) =>
      api.request(`/workflows/${workflow.workflow_id}/datacollections`, dataCollectionListSchema, {
        query: { limit: 200 },
        signal,
      }),
  });
  return (
    <Card withBorder radius="md">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Title order={3} size="h4">
            {workflow.name}
          </Title>
          {workflow.engine && (
            <Badge variant="outline">
              {workflow.engine.name}
              {workflow.engine.version ? ` ${workflow.engine.version}` : ''}
            </Badge>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {workflow.data_location
            ? `${workflow.data_location.structure} · ${workflow.data_location.locations.join(', ')}`
            : 'Uploads only'}
        </Text>
        {collections.isPending && <Loader size="sm" aria-label="Loading data collections" />}
        {collections.isError && <Text c="red">{errorMessage(collections.error)}</Text>}
        {collections.data && collections.data.items.length === 0 && (
          <Text size="sm" c="dimmed">
            No data collections.
          </Text>
        )}
        {collections.data && collections.data.items.length > 0 && (
          <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {collections.data.items.map((collection) => (
              <li key={collection.data_collection_id}>
                <UnstyledButton
                  onClick={() => onSelect(collection)}
                  aria-pressed={selected === collection.data_collection_id}
                  p={6}
                  w="100%"
                  style={{
                    borderRadius: 6,
                    background:
                      selected === collection.data_collection_id ? 'var(--mantine-color-blue-light)' : undefined,
                  }}
                >
                  <Group justify="space-between" wrap="nowrap">
                    <Text size="sm" fw={500}>
                      {collection.tag}
                    </Text>
                    <Badge size="xs" variant="light">
                      {collection.format}
                    </Badge>
                  </Group>
                </UnstyledButton>
              </li>
            ))}
          </Stack>
        )}
      </Stack>
    </Card>
  );
}

export function ProjectDetailPage() {
  const { projectId = '' } = useParams();
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const selectedId = params.get('dc');
  const project = useQuery({
    queryKey: ['project', projectId],
    queryFn: ({ signal }) => api.request(`/projects/${projectId}`, projectSchema, { signal }),
  });
  const workflows = useQuery({
    queryKey: ['workflows', projectId],
    queryFn: ({ signal }) =>
      api.request(`/projects/${projectId}/workflows`, workflowListSchema, { query: { limit: 200 }, signal }),
    enabled: project.isSuccess,
  });
  const selected = useQuery({
    queryKey: ['datacollection', selectedId],
    queryFn: ({ signal }) => api.request(`/datacollections/${selectedId}`, dataCollectionSchema, { signal }),
    enabled: selectedId !== null,
  });

  if (project.isPending) return <Loader aria-label="Loading project" />;
  if (project.isError) {
    return (
      <Alert color="red" role="alert" title={isApiError(project.error, 'not_found') ? 'Project not found' : 'Error'}>
        {isApiError(project.error, 'not_found')
          ? 'This project does not exist, or you are not allowed to see it.'
          : errorMessage(project.error)}{' '}
        <Anchor component={Link} to="/projects">
          Back to projects
        </Anchor>
      </Alert>
    );
  }
  const { data } = project;
  return (
    <Stack gap="md">
      <Breadcrumbs aria-label="Breadcrumb">
        <Anchor component={Link} to="/projects">
          Projects
        </Anchor>
        <Text>{data.name}</Text>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{data.name}</Title>
          {data.description && <Text c="dimmed">{data.description}</Text>}
        </Stack>
        <Group gap="xs">
          {data.is_public && <Badge variant="outline">public</Badge>}
          <Badge variant="light">{data.my_role}</Badge>
        </Group>
      </Group>
      <Text size="sm" c="dimmed">
        Owners: {data.permissions.owners.map((owner) => owner.email).join(', ') || '—'} · Updated{' '}
        {formatDate(data.updated_at)}
      </Text>
      <IngestionPanel projectId={data.project_id} />
      <Title order={2} size="h3">
        Workflows
      </Title>
      {workflows.isPending && <Loader aria-label="Loading workflows" />}
      {workflows.isError && (
        <Alert color="red" role="alert">
          {errorMessage(workflows.error)}
        </Alert>
      )}
      {workflows.data && workflows.data.items.length === 0 && (
        <Text c="dimmed">This project has no workflows yet.</Text>
      )}
      {workflows.data && workflows.data.items.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {workflows.data.items.map((workflow) => (
            <WorkflowCard
              key={workflow.workflow_id}
              workflow={workflow}
              selected={selectedId}
              onSelect={(collection) => setParams({ dc: collection.data_collection_id })}
            />
          ))}
        </SimpleGrid>
      )}
      {selectedId !== null && selected.isError && (
        <Alert color="red" role="alert">
          {errorMessage(selected.error)}
        </Alert>
      )}
      {selected.data && (
        <PreviewTable
          key={selected.data.data_collection_id}
          collection={selected.data}
          canEdit={data.my_role === 'admin' || data.my_role === 'owner' || data.my_role === 'editor'}
        />
      )}
    </Stack>
  );
}
