import { Alert, Anchor, Badge, Group, Loader, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { projectListSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import type { z } from 'zod';
import { errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { ProjectActions } from '../components/ProjectActions.js';
import { UrlPagination, usePageParam } from '../components/UrlPagination.js';
import { formatDate } from '../format/date.js';

type Scope = 'mine' | 'shared' | 'public';
const SCOPES: { value: Scope; label: string }[] = [
  { value: 'mine', label: 'My projects' },
  { value: 'shared', label: 'Shared with me' },
  { value: 'public', label: 'Public' },
];
const PAGE_SIZE = 20;

type ProjectItem = z.infer<typeof projectListSchema>['items'][number];

/** A project's line: its name (a link, marked when public), description, the caller's role and its date. */
function ProjectRow({ project }: { project: ProjectItem }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <Anchor component={Link} to={`/projects/${project.project_id}`} fw={500}>
            {project.name}
          </Anchor>
          {project.is_public && (
            <Badge size="xs" variant="outline">
              public
            </Badge>
          )}
        </Group>
      </Table.Td>
      <Table.Td>
        <Text size="sm" lineClamp={2}>
          {project.description || '—'}
        </Text>
      </Table.Td>
      <Table.Td>
        <Badge variant="light">{project.my_role}</Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDate(project.created_at)}</Text>
      </Table.Td>
    </Table.Tr>
  );
}

function ProjectTable({ scope }: { scope: Scope }) {
  const api = useApi();
  const page = usePageParam();
  const projects = useQuery({
    queryKey: ['projects', scope, page],
    queryFn: ({ signal }) =>
      api.request('/projects', projectListSchema, {
        query: { scope, limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
  });

  if (projects.isPending) return <Loader aria-label="Loading projects" m="md" />;
  if (projects.isError) {
    return (
      <Alert color="red" role="alert" title="Could not load projects">
        {errorMessage(projects.error)}
      </Alert>
    );
  }
  const { items, total } = projects.data;
  if (items.length === 0) {
    return (
      <Text c="dimmed" p="md">
        {scope === 'mine'
          ? 'You have no projects yet. Create one, then add your data files to it; or import a project.yaml.'
          : scope === 'shared'
            ? 'Nobody has shared a project with you yet.'
            : 'There are no public projects.'}
      </Text>
    );
  }
  const pages = Math.ceil(total / PAGE_SIZE);
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={560}>
        <Table striped highlightOnHover verticalSpacing="sm" aria-label="Projects">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Description</Table.Th>
              <Table.Th>Your role</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((project) => (
              <ProjectRow key={project.project_id} project={project} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <UrlPagination pages={pages} label="Project pages" />
    </Stack>
  );
}

export function ProjectsPage() {
  const { user } = useAuth();
  const [params, setParams] = useSearchParams();
  // Anonymous visitors (public and demo mode) can only see public projects.
  const scopes = user === null ? SCOPES.filter((scope) => scope.value === 'public') : SCOPES;
  const requested = params.get('scope');
  const scope = scopes.find((entry) => entry.value === requested)?.value ?? scopes[0]?.value ?? 'public';
  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1}>Projects</Title>
        {user !== null && <ProjectActions />}
      </Group>
      <Tabs
        value={scope}
        onChange={(value) => {
          if (value !== null) setParams({ scope: value });
        }}
        keepMounted={false}
      >
        <Tabs.List aria-label="Which projects">
          {scopes.map((entry) => (
            <Tabs.Tab key={entry.value} value={entry.value}>
              {entry.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {scopes.map((entry) => (
          <Tabs.Panel key={entry.value} value={entry.value} pt="md">
            <ProjectTable scope={entry.value} />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
