import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Code,
  Group,
  Loader,
  Pagination,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { type Job, jobKindSchema, jobListSchema, jobStatusSchema } from '@service/common';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorMessage, isApiError } from '../api/client.js';
import { useApi, useAuth } from '../auth/session.js';
import { JobStatusCard } from '../components/JobStatusCard.js';
import { formatDate } from '../format/date.js';
import { formatDuration, jobEnded, jobProgress, statusColor } from '../jobs/format.js';
import { onJobEvent, useJob } from '../jobs/useJob.js';
import { useLiveEvents } from '../live/useLiveEvents.js';

const PAGE_SIZE = 25;
const KINDS = jobKindSchema.options;
const STATUSES = jobStatusSchema.options;

/** The list's filters and page, kept in the address; changing a filter goes back to the first page. */
function useJobFilters() {
  const [params, setParams] = useSearchParams();
  const kind = jobKindSchema.safeParse(params.get('kind')).data;
  const status = jobStatusSchema.safeParse(params.get('status')).data;
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const setFilter = (name: string, value: string | null) => {
    const next = new URLSearchParams(params);
    if (value === null || value === '') next.delete(name);
    else next.set(name, value);
    // A new filter starts again at the first page; the page itself is a filter of its own.
    if (name !== 'page') next.delete('page');
    setParams(next);
  };
  return { kind, status, page, setFilter };
}

type JobFilters = ReturnType<typeof useJobFilters>;

function useJobList({ kind, status, page }: Pick<JobFilters, 'kind' | 'status' | 'page'>, live: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs', kind ?? null, status ?? null, page],
    queryFn: ({ signal }) =>
      api.request('/jobs', jobListSchema, {
        query: { kind, status, limit: PAGE_SIZE, skip: (page - 1) * PAGE_SIZE },
        signal,
      }),
    placeholderData: keepPreviousData,
    // Keep the list live while anything in it is still going: by the event stream, else by polling.
    refetchInterval: (query) => (!live && query.state.data?.items.some((job) => !jobEnded(job.status)) ? 2000 : false),
  });
}

export function JobsPage() {
  const { user } = useAuth();
  const filters = useJobFilters();
  const { kind, status, setFilter } = filters;
  const queryClient = useQueryClient();
  const live = useLiveEvents({}, (name, data) => onJobEvent(queryClient, name, data));
  const jobs = useJobList(filters, live);
  return (
    <Stack gap="md">
      <Title order={1}>Jobs</Title>
      <Text c="dimmed" size="sm">
        {user?.role === 'admin' ? 'Everyone’s background jobs, newest first.' : 'Your background jobs, newest first.'}
      </Text>
      <Group gap="sm">
        <Select
          label="Kind"
          placeholder="Any kind"
          data={KINDS}
          value={kind ?? null}
          onChange={(value) => setFilter('kind', value)}
          clearable
          w={220}
        />
        <Select
          label="Status"
          placeholder="Any status"
          data={STATUSES}
          value={status ?? null}
          onChange={(value) => setFilter('status', value)}
          clearable
          w={180}
        />
      </Group>
      <JobList jobs={jobs} filters={filters} />
    </Stack>
  );
}

/** The page of jobs with its pagination, or why there is none. */
function JobList({ jobs, filters }: { jobs: ReturnType<typeof useJobList>; filters: JobFilters }) {
  if (jobs.isPending) return <Loader aria-label="Loading jobs" />;
  if (jobs.isError) {
    return (
      <Alert color="red" role="alert" title="Could not load jobs">
        {isApiError(jobs.error, 'not_found')
          ? 'Background jobs are turned off on this server.'
          : errorMessage(jobs.error)}
      </Alert>
    );
  }
  if (jobs.data.items.length === 0) {
    return <Text c="dimmed">No jobs{filters.kind || filters.status ? ' match these filters' : ' yet'}.</Text>;
  }
  const pages = Math.ceil(jobs.data.total / PAGE_SIZE);
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={720}>
        <Table striped highlightOnHover verticalSpacing="sm" aria-label="Jobs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Job</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Step</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Duration</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {jobs.data.items.map((job) => (
              <JobRow key={job.job_id} job={job} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {pages > 1 && (
        <Pagination
          total={pages}
          value={filters.page}
          onChange={(value) => filters.setFilter('page', String(value))}
          aria-label="Job pages"
        />
      )}
    </Stack>
  );
}

function JobRow({ job }: { job: Job }) {
  return (
    <Table.Tr>
      <Table.Td>
        <Anchor component={Link} to={`/jobs/${job.job_id}`} ff="monospace" size="sm">
          {job.job_id.slice(-12)}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{job.kind}</Text>
      </Table.Td>
      <Table.Td>
        <Badge color={statusColor(job.status)}>{job.status}</Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          {job.step ?? '—'}
          {!jobEnded(job.status) && ` · ${jobProgress(job).label}`}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDate(job.created_at)}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{formatDuration(job.started_at, job.finished_at) ?? '—'}</Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function JobDetailPage() {
  const { jobId = '' } = useParams();
  const queryClient = useQueryClient();
  const live = useLiveEvents({}, (name, data) => onJobEvent(queryClient, name, data));
  const job = useJob(jobId, live);
  let body: React.ReactNode;
  if (job.isPending) body = <Loader aria-label="Loading job" />;
  else if (job.isError) {
    body = (
      <Alert color="red" role="alert" title={isApiError(job.error, 'not_found') ? 'Job not found' : 'Error'}>
        {isApiError(job.error, 'not_found') ? 'This job does not exist, or it is not yours.' : errorMessage(job.error)}
      </Alert>
    );
  } else {
    const { data } = job;
    body = (
      <Stack gap="md">
        <JobStatusCard job={data} title={data.kind} />
        <Text size="sm">
          Created {formatDate(data.created_at)}
          {data.started_at && ` · started ${formatDate(data.started_at)}`}
          {data.finished_at && ` · finished ${formatDate(data.finished_at)}`}
          {data.project_id && (
            <>
              {' · '}
              <Anchor component={Link} to={`/projects/${data.project_id}`}>
                project
              </Anchor>
            </>
          )}
        </Text>
        {data.result !== undefined && (
          <Stack gap={4}>
            <Title order={2} size="h4">
              Result
            </Title>
            <Code block aria-label="Job result">
              {JSON.stringify(data.result, null, 2)}
            </Code>
          </Stack>
        )}
      </Stack>
    );
  }
  return (
    <Stack gap="md">
      <Breadcrumbs aria-label="Breadcrumb">
        <Anchor component={Link} to="/jobs">
          Jobs
        </Anchor>
        <Text ff="monospace">{jobId}</Text>
      </Breadcrumbs>
      <Title order={1}>Job</Title>
      {body}
    </Stack>
  );
}
