import { Alert, Anchor, Button, Group, List, Loader, Modal, Stack, Text } from '@mantine/core';
import {
  type DataCollection,
  dataCollectionDeletionSummarySchema,
  type Project,
  projectDeletionSummarySchema,
} from '@service/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatCount } from '../format/number.js';

const plural = (count: number, one: string, many = `${one}s`) => `${formatCount(count)} ${count === 1 ? one : many}`;

/** A red button that opens a dialog: the summary of what goes, then Delete or Keep. */
function DeleteButton({
  label,
  title,
  summary,
  onDelete,
}: {
  label: string;
  title: string;
  /** The dialog's body, asked for when it opens. */
  summary: () => ReactNode;
  onDelete: () => Promise<void>;
}) {
  const [opened, setOpened] = useState(false);
  const remove = useMutation({ mutationFn: onDelete });
  return (
    <>
      <Button size="xs" variant="light" color="red" onClick={() => setOpened(true)}>
        {label}…
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={title}>
        <Stack gap="sm">
          {opened && summary()}
          <Text size="sm">This cannot be undone.</Text>
          {remove.isError && (
            <Alert color="red" role="alert" title="Not deleted">
              {errorMessage(remove.error)}
            </Alert>
          )}
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => setOpened(false)} data-autofocus>
              Keep it
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              {label}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function ProjectSummary({ project }: { project: Project }) {
  const api = useApi();
  const summary = useQuery({
    queryKey: ['deletion-summary', 'project', project.project_id],
    queryFn: ({ signal }) =>
      api.request(`/projects/${project.project_id}/deletion-summary`, projectDeletionSummarySchema, { signal }),
  });
  if (summary.isPending) return <Loader size="sm" aria-label="Counting what goes with it" />;
  if (summary.isError) return <Alert color="red">{errorMessage(summary.error)}</Alert>;
  const { data } = summary;
  return (
    <Stack gap={4}>
      <Text size="sm">“{project.name}” goes, with everything in it:</Text>
      <List size="sm" aria-label="What goes with the project">
        <List.Item>{plural(data.workflows, 'workflow')}</List.Item>
        <List.Item>{plural(data.data_collections, 'data collection')} and their tables, every version</List.Item>
        <List.Item>{plural(data.files, 'file')} of its runs</List.Item>
        <List.Item>{plural(data.dashboards, 'dashboard')}, also for the people they are shared with</List.Item>
        {data.active_embed_tokens > 0 && (
          <List.Item>{plural(data.active_embed_tokens, 'embed link')} in other sites, which stop working</List.Item>
        )}
      </List>
    </Stack>
  );
}

/** "Delete project…" (owners): the summary from the server, then back to the projects list. */
export function DeleteProjectButton({ project }: { project: Project }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <DeleteButton
      label="Delete project"
      title="Delete the project?"
      summary={() => <ProjectSummary project={project} />}
      onDelete={async () => {
        await api.requestVoid(`/projects/${project.project_id}`, { method: 'DELETE' });
        queryClient.removeQueries({ queryKey: ['project', project.project_id] });
        void queryClient.invalidateQueries({ queryKey: ['projects'] });
        void queryClient.invalidateQueries({ queryKey: ['dashboards'] });
        navigate('/projects');
      }}
    />
  );
}

function CollectionSummary({ collection }: { collection: DataCollection }) {
  const api = useApi();
  const summary = useQuery({
    queryKey: ['deletion-summary', 'collection', collection.data_collection_id],
    queryFn: ({ signal }) =>
      api.request(
        `/datacollections/${collection.data_collection_id}/deletion-summary`,
        dataCollectionDeletionSummarySchema,
        {
          signal,
        },
      ),
  });
  if (summary.isPending) return <Loader size="sm" aria-label="Counting what goes with it" />;
  if (summary.isError) return <Alert color="red">{errorMessage(summary.error)}</Alert>;
  const { data } = summary;
  return (
    <Stack gap={4}>
      <Text size="sm">
        “{collection.tag}” and its table go, every version. Its {plural(data.files, 'file')} stay with the runs they
        came from.
      </Text>
      {data.dashboards.length === 0 ? (
        <Text size="sm">No dashboard shows it.</Text>
      ) : (
        <>
          <Text size="sm">
            Their components on it stop showing data in {plural(data.dashboards.length, 'dashboard')}:
          </Text>
          <List size="sm" aria-label="Dashboards that show the collection">
            {data.dashboards.map((dashboard) => (
              <List.Item key={dashboard.dashboard_id}>
                <Anchor component={Link} to={`/dashboards/${dashboard.dashboard_id}`}>
                  {dashboard.title}
                </Anchor>
              </List.Item>
            ))}
          </List>
        </>
      )}
    </Stack>
  );
}

/** "Delete collection…" (editors): the summary from the server, then back to the project. */
export function DeleteCollectionButton({ collection }: { collection: DataCollection }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <DeleteButton
      label="Delete collection"
      title="Delete the data collection?"
      summary={() => <CollectionSummary collection={collection} />}
      onDelete={async () => {
        await api.requestVoid(`/datacollections/${collection.data_collection_id}`, { method: 'DELETE' });
        void queryClient.invalidateQueries({ queryKey: ['datacollections', collection.workflow_id] });
        navigate(`/projects/${collection.project_id}`);
      }}
    />
  );
}
