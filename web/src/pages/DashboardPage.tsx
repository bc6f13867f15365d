import { Alert, Anchor, Badge, Card, Group, Loader, Pagination, Stack, Text, Title } from '@mantine/core';
import {
  DASHBOARD_GRID_COLUMNS,
  type Dashboard,
  type DashboardComponent,
  dashboardSchema,
  type LayoutItem,
  previewAnswerSchema,
  type SortKey,
  type TableComponent,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type CSSProperties, useState } from 'react';
import { Link, useParams } from 'react-router';
import { errorMessage, isApiError } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { Markdown } from '../components/Markdown.js';
import { RowsTable } from '../components/RowsTable.js';
import { formatSort, nextSort } from '../explorer/sort.js';
import { formatCount } from '../format/number.js';

/** Heights of components that have no layout entry, in grid rows. */
const DEFAULT_HEIGHT: Record<DashboardComponent['type'], number> = {
  text: 2,
  table: 8,
  figure: 6,
  card: 2,
  interactive: 2,
};

/**
 * Every component with its place: the layout's entries first, then the components it leaves out,
 * full width below them; in reading order (top to bottom, then left to right).
 */
export function placeComponents(dashboard: Pick<Dashboard, 'components' | 'layout'>) {
  const byId = new Map(dashboard.components.map((component) => [component.component_id, component]));
  const placed = dashboard.layout.flatMap((item) => {
    const component = byId.get(item.component_id);
    return component ? [{ component, item }] : [];
  });
  let bottom = Math.max(0, ...placed.map(({ item }) => item.y + item.h));
  const laidOut = new Set(placed.map(({ component }) => component.component_id));
  for (const component of dashboard.components) {
    if (laidOut.has(component.component_id)) continue;
    const h = DEFAULT_HEIGHT[component.type];
    placed.push({
      component,
      item: { component_id: component.component_id, x: 0, y: bottom, w: DASHBOARD_GRID_COLUMNS, h },
    });
    bottom += h;
  }
  return placed.sort((a, b) => a.item.y - b.item.y || a.item.x - b.item.x);
}

function TableView({ dashboardId, component }: { dashboardId: string; component: TableComponent }) {
  const api = useApi();
  const [page, setPage] = useState(1);
  // null: the component's own default order.
  const [sort, setSort] = useState<SortKey[] | null>(null);
  const pageSize = component.page_size;
  const rows = useQuery({
    queryKey: ['dashboard-rows', dashboardId, component.component_id, page, sort],
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${dashboardId}/components/${component.component_id}/rows`, previewAnswerSchema, {
        query: {
          limit: pageSize,
          skip: (page - 1) * pageSize,
          // An empty list asks for the component's default order too.
          sort: formatSort(sort ?? []) ?? undefined,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
  const label = component.title || 'Table';
  if (rows.isPending) return <Loader size="sm" aria-label={`Loading ${label}`} />;
  if (rows.isError) {
    return (
      <Alert color="red" role="alert" title={`Could not load ${label}`}>
        {errorMessage(rows.error)}
      </Alert>
    );
  }
  if (rows.data.columns.length === 0) return <Text c="dimmed">No data yet.</Text>;
  const pages = Math.max(1, Math.ceil(rows.data.total / pageSize));
  const shownSort = sort ?? component.sort;
  return (
    <Stack gap="xs" style={{ minHeight: 0, flex: 1 }}>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {formatCount(rows.data.total)} rows
        </Text>
        {rows.isFetching && <Loader size="xs" aria-label={`Updating ${label}`} />}
      </Group>
      <div style={{ minHeight: 0, flex: 1, overflow: 'auto' }}>
        <RowsTable
          answer={rows.data}
          label={label}
          sort={shownSort[0] ?? null}
          onSort={(column) => {
            // Ascending, descending, then back to the component's default order.
            const next = nextSort(sort ?? [], column, false);
            setSort(next.length === 0 ? null : next);
            setPage(1);
          }}
        />
      </div>
      {pages > 1 && (
        <Pagination size="sm" total={pages} value={page} onChange={setPage} aria-label={`${label} pages`} />
      )}
    </Stack>
  );
}

function ComponentCard({
  dashboardId,
  component,
  item,
}: {
  dashboardId: string;
  component: DashboardComponent;
  item: LayoutItem;
}) {
  const style = {
    '--dashboard-x': item.x + 1,
    '--dashboard-y': item.y + 1,
    '--dashboard-w': item.w,
    '--dashboard-h': item.h,
  } as CSSProperties;
  return (
    <Card
      withBorder
      radius="md"
      className="dashboard-cell"
      style={style}
      component="section"
      aria-label={component.title || (component.type === 'text' ? 'Text' : 'Table')}
    >
      {component.title && component.type === 'table' && (
        <Title order={2} size="h4" mb="xs">
          {component.title}
        </Title>
      )}
      {component.type === 'text' ? (
        <div style={{ overflow: 'auto' }}>
          <Markdown text={component.markdown} />
        </div>
      ) : component.type === 'table' ? (
        <TableView dashboardId={dashboardId} component={component} />
      ) : (
        <Text c="dimmed">This component is drawn by a newer version of the app.</Text>
      )}
    </Card>
  );
}

export function DashboardPage() {
  const { dashboardId = '' } = useParams();
  const api = useApi();
  const dashboard = useQuery({
    queryKey: ['dashboard', dashboardId],
    queryFn: ({ signal }) => api.request(`/dashboards/${dashboardId}`, dashboardSchema, { signal }),
  });
  if (dashboard.isPending) return <Loader aria-label="Loading dashboard" />;
  if (dashboard.isError) {
    const missing = isApiError(dashboard.error, 'not_found');
    return (
      <Alert color="red" role="alert" title={missing ? 'Dashboard not found' : 'Error'}>
        {missing ? 'This dashboard does not exist, or you are not allowed to see it.' : errorMessage(dashboard.error)}
      </Alert>
    );
  }
  const { data } = dashboard;
  // A dashboard can be shared without its project, and a public one can sit in a private project.
  const projectReader = data.project_role !== null;
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{data.title}</Title>
          {data.description && <Text c="dimmed">{data.description}</Text>}
        </Stack>
        <Group gap="xs">
          {projectReader && (
            <Anchor component={Link} to={`/projects/${data.project_id}`} size="sm">
              Project
            </Anchor>
          )}
          {data.is_public && <Badge variant="outline">public</Badge>}
          <Badge variant="light">{data.my_role}</Badge>
        </Group>
      </Group>
      {data.components.length === 0 ? (
        <Text c="dimmed">This dashboard has no components yet.</Text>
      ) : (
        <div className="dashboard-grid" style={{ '--dashboard-columns': DASHBOARD_GRID_COLUMNS } as CSSProperties}>
          {placeComponents(data).map(({ component, item }) => (
            <ComponentCard
              key={component.component_id}
              dashboardId={data.dashboard_id}
              component={component}
              item={item}
            />
          ))}
        </div>
      )}
    </Stack>
  );
}
