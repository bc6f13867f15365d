import { Alert, Button, Group, Loader, Modal, Pagination, Stack, Text, UnstyledButton } from '@mantine/core';
import {
  type AsOf,
  type DashboardFilter,
  IMAGE_COLUMNS,
  type ImageComponent,
  type PreviewAnswer,
  previewAnswerSchema,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { formatCount } from '../format/number.js';

/** Where an image's bytes come from: a saved gallery's route, or (the editor's preview) its collection's. */
export interface ImageSource {
  dashboardId: string;
  preview: boolean;
}

type Item = { id: string; path: string; caption: string; width: number | null; height: number | null };

/**
 * A gallery (docs/dashboards.md "Images"): a page of thumbnails under the dashboard's filters, the
 * first with the dashboard's data, the others from the rows route; a click opens the full image in
 * a viewer (fitted, or at its own size). Thumbnails and images are fetched with the session's
 * token and shown from object URLs; a full image is fetched only when opened.
 */
export function GalleryView({
  source,
  component,
  firstPage,
  filters,
  asOf,
  updating,
}: {
  source: ImageSource;
  component: ImageComponent;
  firstPage: PreviewAnswer;
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
  updating: boolean;
}) {
  const api = useApi();
  const filtersParam = filters.length === 0 ? undefined : JSON.stringify(filters);
  const asOfParam = asOf === null ? undefined : typeof asOf === 'string' ? asOf : JSON.stringify(asOf);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Item | null>(null);
  const view = `${filtersParam} ${asOfParam}`;
  const [shownFor, setShownFor] = useState(view);
  if (shownFor !== view) {
    setShownFor(view);
    setPage(1);
  }
  const pageSize = component.page_size;
  const rows = useQuery({
    queryKey: ['dashboard-gallery', source.dashboardId, component.component_id, page, filtersParam, asOfParam],
    queryFn: ({ signal }) =>
      api.request(`/dashboards/${source.dashboardId}/components/${component.component_id}/rows`, previewAnswerSchema, {
        query: { limit: pageSize, skip: (page - 1) * pageSize, filters: filtersParam, as_of: asOfParam },
        signal,
      }),
    placeholderData: keepPreviousData,
    enabled: page !== 1 && !source.preview,
  });
  const label = component.title || 'Images';
  const answer = page === 1 ? firstPage : rows.data;
  if (page !== 1 && rows.isError) {
    return (
      <Alert color="red" role="alert" title={`Could not load ${label}`}>
        {errorMessage(rows.error)}
      </Alert>
    );
  }
  if (answer === undefined) return <Loader size="sm" role="status" aria-label={`Loading ${label}`} />;
  const items = itemsOf(answer, component);
  const pages = Math.max(1, Math.ceil(answer.total / pageSize));
  return (
    <Stack gap="xs" style={{ minHeight: 0, flex: 1 }}>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {formatCount(answer.total)} images
        </Text>
        {(updating || (page !== 1 && rows.isFetching)) && (
          <Loader size="xs" role="status" aria-label={`Updating ${label}`} />
        )}
      </Group>
      <ul className="image-gallery" aria-label={label}>
        {items.map((item) => (
          <li key={item.id}>
            <UnstyledButton onClick={() => setOpen(item)} aria-label={`Open ${item.path}`} className="image-tile">
              <Picture source={source} component={component} item={item} size="thumbnail" />
              <Text size="xs" component="span" className="image-caption">
                {item.caption}
              </Text>
            </UnstyledButton>
          </li>
        ))}
      </ul>
      {pages > 1 && !source.preview && (
        <Pagination size="sm" total={pages} value={page} onChange={setPage} aria-label={`${label} pages`} />
      )}
      <Viewer source={source} component={component} item={open} onClose={() => setOpen(null)} />
    </Stack>
  );
}

function Viewer({
  source,
  component,
  item,
  onClose,
}: {
  source: ImageSource;
  component: ImageComponent;
  item: Item | null;
  onClose: () => void;
}) {
  const [actual, setActual] = useState(false);
  return (
    <Modal opened={item !== null} onClose={onClose} title={item?.path ?? ''} size="xl" centered>
      {item !== null && (
        <Stack gap="xs">
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {item.width !== null && item.height !== null ? `${item.width} × ${item.height} px` : ''} {item.caption}
            </Text>
            <Button size="xs" variant="default" onClick={() => setActual(!actual)} aria-pressed={actual}>
              {actual ? 'Fit to window' : 'Actual size'}
            </Button>
          </Group>
          <div className={actual ? 'image-viewer image-viewer-actual' : 'image-viewer'}>
            <Picture source={source} component={component} item={item} size="full" />
          </div>
        </Stack>
      )}
    </Modal>
  );
}

/** One image's bytes, fetched with the session and shown from an object URL (released when unused). */
function Picture({
  source,
  component,
  item,
  size,
}: {
  source: ImageSource;
  component: ImageComponent;
  item: Item;
  size: 'thumbnail' | 'full';
}) {
  const api = useApi();
  const path = source.preview
    ? `/datacollections/${component.data_collection_id}/images/${item.id}`
    : `/dashboards/${source.dashboardId}/components/${component.component_id}/images/${item.id}`;
  const bytes = useQuery({
    queryKey: ['image', path, size],
    queryFn: ({ signal }) => api.requestBlob(path, { query: { size }, signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (bytes.data === undefined) return undefined;
    const made = URL.createObjectURL(bytes.data);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [bytes.data]);
  if (bytes.isError) {
    return (
      <Text size="xs" c="red" className="image-missing">
        {errorMessage(bytes.error)}
      </Text>
    );
  }
  if (url === null) return <Loader size="xs" role="status" aria-label={`Loading ${item.path}`} />;
  return <img src={url} alt={item.path} data-image-size={size} />;
}

function itemsOf(answer: PreviewAnswer, component: ImageComponent): Item[] {
  const captions = component.caption_columns ?? [IMAGE_COLUMNS.path];
  return answer.rows.map((row) => {
    const number = (value: unknown) => (typeof value === 'number' ? value : null);
    return {
      id: String(row[IMAGE_COLUMNS.id] ?? ''),
      path: String(row[IMAGE_COLUMNS.path] ?? ''),
      caption: captions.map((name) => String(row[name] ?? '')).join(' · '),
      width: number(row[IMAGE_COLUMNS.width]),
      height: number(row[IMAGE_COLUMNS.height]),
    };
  });
}
