import { Alert, Button, Group, Loader, Modal, Stack, Text, UnstyledButton } from '@mantine/core';
import {
  type AsOf,
  type DashboardFilter,
  IMAGE_COLUMNS,
  type ImageComponent,
  type PreviewAnswer,
  previewAnswerSchema,
} from '@service/common';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type CSSProperties, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../api/client.js';
import { useApi } from '../auth/session.js';
import { PagePicker, PagingHeader } from './Paging.js';

/** Where an image's bytes come from: a saved gallery's route, or (the editor's preview) its collection's. */
export interface ImageSource {
  dashboardId: string;
  preview: boolean;
}

type Item = { id: string; path: string; caption: string; width: number | null; height: number | null };

/**
 * A gallery (docs/dashboards.md "Images"): a page of thumbnails under the dashboard's filters, the
 * first with the dashboard's data, the others from the rows route; a click opens the full image in
 * a viewer (fitted, or zoomed). The count above and the page picker below are a table's (Paging.tsx). Thumbnails and images are fetched with the session's
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
  return (
    <Stack gap="xs" style={{ minHeight: 0, flex: 1 }}>
      <PagingHeader
        label={label}
        total={answer.total}
        noun="images"
        updating={updating || (page !== 1 && rows.isFetching)}
      />
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
      {!source.preview && (
        <PagePicker label={label} total={answer.total} pageSize={pageSize} page={page} onChange={setPage} />
      )}
      <Viewer source={source} component={component} item={open} onClose={() => setOpen(null)} />
    </Stack>
  );
}

/** The zoom steps of the viewer, as a share of the image's own size. */
const ZOOMS = [0.125, 0.25, 0.5, 1, 2, 4, 8] as const;

/** The next step in or out from `scale` (the one shown), or `scale` itself past the last step. */
function nextZoom(scale: number, direction: 'in' | 'out'): number {
  const near = (step: number) => Math.abs(step - scale) < 1e-6;
  if (direction === 'in') return ZOOMS.find((step) => step > scale && !near(step)) ?? scale;
  return [...ZOOMS].reverse().find((step) => step < scale && !near(step)) ?? scale;
}

/**
 * The full image in a dialog (Escape closes it): fitted to the window, or zoomed in and out in
 * steps from 1/8 to 8 times its own size (Actual size: 1), scrolled when larger than the window.
 */
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
  // null: fitted to the window.
  const [zoom, setZoom] = useState<number | null>(null);
  const frame = useRef<HTMLDivElement>(null);
  const close = () => {
    setZoom(null);
    onClose();
  };
  /** The scale shown now: the zoom, or what fitting made of the image. */
  const shownScale = () => {
    if (zoom !== null) return zoom;
    const image = frame.current?.querySelector('img');
    return image && image.naturalWidth > 0 ? image.clientWidth / image.naturalWidth : 1;
  };
  const width = item?.width ?? null;
  return (
    <Modal opened={item !== null} onClose={close} title={item?.path ?? ''} size="xl" centered>
      {item !== null && (
        <Stack gap="xs">
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {item.width !== null && item.height !== null ? `${item.width} × ${item.height} px` : ''} {item.caption}
            </Text>
            <Group gap={4}>
              <Button size="xs" variant="default" onClick={() => setZoom(nextZoom(shownScale(), 'out'))}>
                Zoom out
              </Button>
              <Text size="sm" role="status" aria-label="Zoom" miw="3.5rem" ta="center">
                {zoom === null ? 'Fit' : `${Number((zoom * 100).toFixed(1))} %`}
              </Text>
              <Button size="xs" variant="default" onClick={() => setZoom(nextZoom(shownScale(), 'in'))}>
                Zoom in
              </Button>
              <Button size="xs" variant="default" onClick={() => setZoom(zoom === null ? 1 : null)}>
                {zoom === null ? 'Actual size' : 'Fit to window'}
              </Button>
            </Group>
          </Group>
          <div
            ref={frame}
            className={zoom === null ? 'image-viewer' : 'image-viewer image-viewer-zoomed'}
            style={
              zoom === null || width === null
                ? undefined
                : ({ '--image-zoom-width': `${width * zoom}px` } as CSSProperties)
            }
          >
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
