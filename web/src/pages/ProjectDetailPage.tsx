import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import {
  type DataCollection,
  dataCollectionListSchema,
  type Project,
  type Workflow,
  workflowListSchema,
} from '@service/common';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { AddData } from '../adddata/lazy.js';
import { errorMessage, isApiError } from '../api/client.js';
import { projectWorkflowsGet } from '../api/wire.js';
import { useApi } from '../auth/session.js';
import { useAfterFirstRender } from '../components/after-first-render.js';
import { DeleteProjectButton } from '../components/DeleteWithSummary.js';
import { PermissionsPanel } from '../components/PermissionsPanel.js';
import { ownersText, StandingBadges } from '../components/StandingBadges.js';
import { usePageParam } from '../components/UrlPagination.js';
import { DashboardList } from '../dashboard/DashboardList.js';
import { NewDashboardMenu } from '../dashboard/NewDashboardMenu.js';
import { DataExplorer } from '../explorer/lazy.js';
import { previewQuery } from '../explorer/queries.js';
import { readExplorerState } from '../explorer/url-state.js';
import { formatDate } from '../format/date.js';
import { IngestionPanel } from '../projects/IngestionPanel.js';
import { WorkflowTiming } from '../projects/WorkflowTiming.js';
import { dataCollectionQuery, projectQuery } from './project-queries.js';

/** Where a workflow's files come from; the server sends the paths only to those who may edit the project. */
function locationText(workflow: Workflow): string {
  if (!workflow.data_location) return 'Uploads only';
  const { structure, locations } = workflow.data_location;
  return [structure, locations?.join(', ')].filter((part) => part !== undefined).join(' · ');
}

function WorkflowCard({
  workflow,
  canEdit,
  selected,
  onSelect,
}: {
  workflow: Workflow;
  canEdit: boolean;
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
          {locationText(workflow)}
        </Text>
        <WorkflowTiming workflow={workflow} canEdit={canEdit} />
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

/**
 * The project's workflows and their collections, with Add data for those who may add data: a new
 * project of theirs opens on Add data rather than on an empty list, and `?add=1` keeps it open.
 */
function WorkflowsSection({
  projectId,
  workflows,
  canEdit,
  selectedId,
}: {
  projectId: string;
  workflows: Workflow[];
  canEdit: boolean;
  selectedId: string | null;
}) {
  const [params, setParams] = useSearchParams();
  const adding = params.get('add') === '1';
  return (
    <>
      {canEdit && (adding || workflows.length === 0) && (
        <AddData
          projectId={projectId}
          workflows={workflows}
          // Kept open (in the address) while the workflow and collection it makes appear.
          onStarted={() => setParams({ add: '1' }, { replace: true })}
          {...(workflows.length > 0 || adding ? { onClose: () => setParams({}) } : {})}
          // The table opens below, with Add data's result (and its overview offer) still above it.
          onExplore={(collectionId) => setParams({ add: '1', dc: collectionId })}
        />
      )}
      {(workflows.length > 0 || !canEdit) && (
        <Group justify="space-between">
          <Title order={2} size="h3">
            Workflows
          </Title>
          {canEdit && !adding && (
            <Button size="xs" onClick={() => setParams({ add: '1' })}>
              Add data
            </Button>
          )}
        </Group>
      )}
      {workflows.length === 0 && !canEdit && <Text c="dimmed">This project has no workflows yet.</Text>}
      {workflows.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {workflows.map((workflow) => (
            <WorkflowCard
              key={workflow.workflow_id}
              workflow={workflow}
              canEdit={canEdit}
              selected={selectedId}
              onSelect={(collection) => setParams({ dc: collection.data_collection_id })}
            />
          ))}
        </SimpleGrid>
      )}
    </>
  );
}

/**
 * The explorer's code and the rows it will show first are fetched alongside the collection itself
 * and the project, not one after the other (docs/performance.md, `web`); once the project shows its
 * collections, a click on one needs no more code.
 */
function usePreloadExplorer(selectedId: string | null, workflowsShown: boolean) {
  const api = useApi();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const page = usePageParam();
  const search = params.toString();
  useEffect(() => {
    if (selectedId === null) return;
    void DataExplorer.preload();
    const state = readExplorerState(new URLSearchParams(search));
    const preview = previewQuery(api, selectedId, { page, ...state });
    // Only what is not there yet: the explorer itself keeps its rows fresh.
    if (state.view === 'preview' && queryClient.getQueryState(preview.queryKey) === undefined) {
      void queryClient.prefetchQuery(preview);
    }
  }, [api, queryClient, selectedId, page, search]);
  useEffect(() => {
    if (workflowsShown) void DataExplorer.preload();
  }, [workflowsShown]);
}

/** The project, its workflows (once the project is there) and the collection the address selects (`dc`). */
function useProjectPageData(projectId: string) {
  const api = useApi();
  const [params] = useSearchParams();
  const selectedId = params.get('dc');
  const project = useQuery(projectQuery(api, projectId));
  const workflows = useQuery({
    queryKey: ['workflows', projectId],
    queryFn: ({ signal }) => api.get(projectWorkflowsGet(projectId), workflowListSchema, signal),
    enabled: project.isSuccess,
  });
  const selected = useQuery({ ...dataCollectionQuery(api, selectedId ?? ''), enabled: selectedId !== null });
  usePreloadExplorer(selectedId, workflows.isSuccess);
  return { project, workflows, selectedId, selected };
}

function ProjectError({ error }: { error: unknown }) {
  const notFound = isApiError(error, 'not_found');
  return (
    <Alert color="red" role="alert" title={notFound ? 'Project not found' : 'Error'}>
      {notFound ? 'This project does not exist, or you are not allowed to see it.' : errorMessage(error)}{' '}
      <Anchor component={Link} to="/projects">
        Back to projects
      </Anchor>
    </Alert>
  );
}

/** The breadcrumb, name, description, badges and owners of the project. */
function ProjectHeader({ project }: { project: Project }) {
  return (
    <>
      <Breadcrumbs aria-label="Breadcrumb">
        <Anchor component={Link} to="/projects">
          Projects
        </Anchor>
        <Text>{project.name}</Text>
      </Breadcrumbs>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{project.name}</Title>
          {project.description && <Text c="dimmed">{project.description}</Text>}
        </Stack>
        <Group gap="xs">
          <StandingBadges isPublic={project.is_public} role={project.my_role} />
          {(project.my_role === 'owner' || project.my_role === 'admin') && <DeleteProjectButton project={project} />}
        </Group>
      </Group>
      <Text size="sm" c="dimmed">
        {ownersText(project.permissions)} · Updated {formatDate(project.updated_at)}
      </Text>
    </>
  );
}

export function ProjectDetailPage() {
  const { projectId = '' } = useParams();
  const { project, workflows, selectedId, selected } = useProjectPageData(projectId);
  const drawRest = useAfterFirstRender();

  if (project.isPending) return <Loader aria-label="Loading project" />;
  if (project.isError) return <ProjectError error={project.error} />;
  const { data } = project;
  const canEdit = data.my_role === 'admin' || data.my_role === 'owner' || data.my_role === 'editor';
  return (
    <Stack gap="md">
      <ProjectHeader project={data} />
      {workflows.isPending && <Loader aria-label="Loading workflows" />}
      {workflows.isError && (
        <Alert color="red" role="alert">
          {errorMessage(workflows.error)}
        </Alert>
      )}
      {workflows.data && (
        <WorkflowsSection
          projectId={data.project_id}
          workflows={workflows.data.items}
          canEdit={canEdit}
          selectedId={selectedId}
        />
      )}
      {selectedId !== null && selected.isError && (
        <Alert color="red" role="alert">
          {errorMessage(selected.error)}
        </Alert>
      )}
      {selected.data && (
        <DataExplorer key={selected.data.data_collection_id} collection={selected.data} canEdit={canEdit} />
      )}
      {/* The data first: on a laptop screen the explorer used to open below these, out of sight. */}
      {drawRest && (
        <>
          <DashboardList
            projectId={data.project_id}
            heading={2}
            actions={canEdit && <NewDashboardMenu projectId={data.project_id} />}
          />
          <IngestionPanel projectId={data.project_id} />
          <PermissionsPanel project={data} />
        </>
      )}
    </Stack>
  );
}
