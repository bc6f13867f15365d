import { Alert, Anchor, Badge, Group, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { dashboardListSchema, projectListSchema } from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import { errorMessage } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { formatDate } from '../format/date.js';

/** How many of each the home page lists; the Projects and Dashboards pages list them all. */
const SHOWN = 8;

interface Entry {
  id: string;
  to: string;
  name: string;
  detail: string;
  isPublic: boolean;
}

/** A titled list of links, with its loading and error states and what to say when it is empty. */
function EntryList({
  title,
  query,
  empty,
  more,
}: {
  title: string;
  query: { isPending: boolean; error: Error | null; data: Entry[] | undefined };
  empty: string;
  more?: ReactNode;
}) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Title order={2} size="h3">
        {title}
      </Title>
      {query.isPending && <Loader size="sm" aria-label={`Loading ${title.toLowerCase()}`} />}
      {query.error && (
        <Alert color="red" role="alert">
          {errorMessage(query.error)}
        </Alert>
      )}
      {query.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      )}
      {query.data !== undefined && query.data.length > 0 && (
        <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {query.data.map((entry) => (
            <li key={entry.id}>
              <Group gap="xs" wrap="wrap">
                <Anchor component={Link} to={entry.to} fw={500}>
                  {entry.name}
                </Anchor>
                {entry.isPublic && (
                  <Badge size="xs" variant="outline">
                    public
                  </Badge>
                )}
                <Text size="xs" c="dimmed">
                  {entry.detail}
                </Text>
              </Group>
            </li>
          ))}
        </Stack>
      )}
      {more}
    </Stack>
  );
}

/** Projects: public ones (the example among them), or those whose name contains `q`. */
function useProjects(q: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['projects', 'home', q],
    queryFn: async ({ signal }) => {
      const query = q === '' ? { scope: 'public', limit: SHOWN } : { q, limit: SHOWN };
      const page = await api.request('/projects', projectListSchema, { query, signal });
      return page.items.map(
        (project): Entry => ({
          id: project.project_id,
          to: `/projects/${project.project_id}`,
          name: project.name,
          detail: project.description,
          isPublic: project.is_public,
        }),
      );
    },
    placeholderData: keepPreviousData,
  });
}

/** Dashboards: the last changed ones, or those whose title contains `q`. */
function useDashboards(q: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['dashboards', 'home', q],
    queryFn: async ({ signal }) => {
      const query = { sort: 'updated', limit: SHOWN, ...(q === '' ? {} : { q }) };
      const page = await api.request('/dashboards', dashboardListSchema, { query, signal });
      return page.items.map(
        (dashboard): Entry => ({
          id: dashboard.dashboard_id,
          to: `/dashboards/${dashboard.dashboard_id}`,
          name: dashboard.title,
          detail: `${dashboard.project_name ?? 'shared with you'} · updated ${formatDate(dashboard.updated_at)}`,
          isPublic: dashboard.is_public,
        }),
      );
    },
    placeholderData: keepPreviousData,
  });
}

/**
 * Where a visitor lands after signing in: the example and public projects to look at, the
 * dashboards changed last, and one search over the names of both.
 */
export function HomePage() {
  const { user } = useAuth();
  const [typed, setTyped] = useState('');
  const [q] = useDebouncedValue(typed.trim(), 250);
  const projects = useProjects(q);
  const dashboards = useDashboards(q);
  const searching = q !== '';
  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Title order={1}>Home</Title>
        <Text c="dimmed" size="sm">
          {user === null || user.is_temporary ? 'Welcome.' : `Welcome, ${user.email}.`} Start with the example project,
          or find a project or dashboard by name.
        </Text>
      </Stack>
      <TextInput
        type="search"
        label="Search projects and dashboards"
        placeholder="Name contains…"
        value={typed}
        onChange={(event) => setTyped(event.currentTarget.value)}
        maw={480}
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xl">
        <EntryList
          title={searching ? 'Projects found' : 'Example and public projects'}
          query={projects}
          empty={searching ? `No project name contains “${q}”.` : 'There are no public projects yet.'}
          more={
            <Anchor component={Link} to="/projects" size="sm">
              All projects
            </Anchor>
          }
        />
        <EntryList
          title={searching ? 'Dashboards found' : 'Recently updated dashboards'}
          query={dashboards}
          empty={searching ? `No dashboard title contains “${q}”.` : 'No dashboards yet.'}
          more={
            <Anchor component={Link} to="/dashboards?sort=updated" size="sm">
              All dashboards
            </Anchor>
          }
        />
      </SimpleGrid>
    </Stack>
  );
}
