import { ActionIcon, Menu, Text, useComputedColorScheme } from '@mantine/core';
import {
  type AsOf,
  type ColorAssignment,
  cardDataSchema,
  cardLabel,
  type DashboardComponent,
  type DashboardFilter,
  exportSpecSchema,
  figureDataSchema,
} from '@service/common';
import { memo, type RefObject, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { AlertDialog } from '../../alerts/lazy.js';
import { errorMessage } from '../../api/client.js';
import { useApi, useAuth } from '../../auth/session.js';
import { componentLabel } from '../chips.js';
import { parseOnce } from '../parse-once.js';
import { cardCsv, exportFilename, figureCsv } from './csv.js';
import { EmbedDialog } from './lazy.js';
import { readerViewQuery } from './reader-view.js';
import { copyText, saveFile } from './save-file.js';

export interface ComponentMenuProps {
  dashboardId: string;
  component: DashboardComponent;
  /** The component's data as shown (undefined while none has arrived, or for text). */
  data: unknown;
  /**
   * The filters and version the dashboard shows, read when an action runs: the menu is not
   * rendered again with each filter change, only when its component's data changes.
   */
  view: () => ShownView;
  /** Every component of the dashboard (the embed dialog names a token's component by its title). */
  components: readonly DashboardComponent[];
  /** The caller may create and revoke embed tokens (owners and editors). */
  canEmbed: boolean;
  /** The dashboard's colour per value, so an image draws what the cell draws. */
  colors?: ColorAssignment | undefined;
}

/** The filters and version a dashboard shows. */
export interface ShownView {
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
}

type Notice = { kind: 'done' | 'failed'; text: string } | null;

/** The size a figure is drawn at in its cell, for images of it (a default before it has been drawn). */
function drawnSize(anchor: HTMLElement | null): { width: number; height: number } {
  const chart = anchor?.closest('[data-component-id]')?.querySelector<HTMLElement>('[data-chart-state]');
  const width = chart?.clientWidth ?? 0;
  const height = chart?.clientHeight ?? 0;
  return width > 0 && height > 0 ? { width, height } : { width: 800, height: 500 };
}

/** The filters and version shown, as the export routes take them. */
function viewQuery({ filters, asOf }: ShownView) {
  return {
    filters: filters.length === 0 ? undefined : JSON.stringify(filters),
    as_of: asOf === null ? undefined : typeof asOf === 'string' ? asOf : JSON.stringify(asOf),
  };
}

/**
 * The export actions of a component, each reporting in `notice` whether it worked. Images and CSV
 * of figures and cards come from what the cell shows; a table's CSV and the spec from the server,
 * under the filters and version shown. Used by the open menu alone.
 */
function useExportActions(
  { dashboardId, component, data, view, colors, components }: ComponentMenuProps,
  anchor: RefObject<HTMLButtonElement | null>,
  report: (notice: Notice) => void,
) {
  const api = useApi();
  const theme = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const [params] = useSearchParams();
  const name = component.title || component.component_id;
  // As shown: a table's header filters, order and columns, a coverage track's contig (docs/export.md).
  const shown = readerViewQuery(component, data, params, components);

  const run = (done: string, action: () => Promise<void> | void) => async () => {
    report(null);
    try {
      await action();
      report({ kind: 'done', text: done });
    } catch (error) {
      report({ kind: 'failed', text: errorMessage(error) });
    }
  };

  // The cell's own reading of its answer (parseOnce).
  const figure = component.type === 'figure' ? parseOnce(figureDataSchema, data) : undefined;
  const card = component.type === 'card' ? parseOnce(cardDataSchema, data) : undefined;
  const image = (format: 'png' | 'svg') =>
    run(`${format.toUpperCase()} downloaded`, async () => {
      if (component.type !== 'figure' || figure === undefined) return;
      const images = await import('./chart-image.js');
      const draw = format === 'png' ? images.figurePng : images.figureSvg;
      const look = { theme, colors };
      saveFile(draw(component, figure, look, drawnSize(anchor.current)), exportFilename(name, format));
    });
  const csv = run('CSV downloaded', async () => {
    let blob: Blob;
    if (component.type === 'figure' && figure !== undefined) {
      blob = new Blob([figureCsv(component, figure)], { type: 'text/csv' });
    } else if (component.type === 'card' && card !== undefined) {
      blob = new Blob([cardCsv(cardLabel(component), card)], { type: 'text/csv' });
    } else {
      // As shown: the reader's header filters, order and columns too (docs/dashboards.md "Tables").
      blob = await api.requestBlob(`/dashboards/${dashboardId}/components/${component.component_id}/download`, {
        query: { ...viewQuery(view()), ...shown },
        accept: 'text/csv',
      });
    }
    saveFile(blob, exportFilename(name, 'csv'));
  });
  const spec = run('Spec JSON copied', async () => {
    const answer = await api.request(`/export/components/${dashboardId}/${component.component_id}`, exportSpecSchema, {
      query: { format: 'spec', ...viewQuery(view()), ...shown },
    });
    await copyText(JSON.stringify(answer, null, 2));
  });

  const figureReady = figure !== undefined;
  const hasData = figureReady || card !== undefined || component.type === 'table';
  return { image, csv, spec, figureReady, hasData };
}

/**
 * A component's menu: "Export" (PNG and SVG of a figure, its data as CSV, its spec JSON) and
 * "Embed…" (owners and editors). Rendered again only when its own props change (not with each
 * filter change: 22 menus of a dashboard took ~10 ms of each change); its items, which read the
 * address and the data, only while it is open.
 */
export const ComponentMenu = memo(function ComponentMenu(props: ComponentMenuProps) {
  const { dashboardId, component, components, canEmbed, view } = props;
  const anchor = useRef<HTMLButtonElement>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [embedding, setEmbedding] = useState(false);
  const [alerting, setAlerting] = useState(false);
  // Any signed-in reader may be alerted about a card (docs/live-data.md "Alerts").
  const { user } = useAuth();
  const alertable = component.type === 'card' && user !== null;
  const label = component.title || (component.type === 'text' ? 'Text' : componentLabel(component));

  const exportable = component.type === 'figure' || component.type === 'card' || component.type === 'table';
  const embeddable = canEmbed && component.type !== 'interactive';
  if (!exportable && !embeddable) return null;
  return (
    <div className="component-menu">
      {notice && (
        <Text
          size="xs"
          c={notice.kind === 'failed' ? 'red' : 'dimmed'}
          role={notice.kind === 'failed' ? 'alert' : 'status'}
        >
          {notice.text}
        </Text>
      )}
      <Menu position="bottom-end" withinPortal onOpen={() => setNotice(null)}>
        <Menu.Target>
          <ActionIcon ref={anchor} variant="subtle" color="gray" size="sm" aria-label={`Menu of ${label}`}>
            <span aria-hidden="true">⋯</span>
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          {exportable && <ExportItems menu={props} anchor={anchor} report={setNotice} />}
          {exportable && embeddable && <Menu.Divider />}
          {embeddable && <Menu.Item onClick={() => setEmbedding(true)}>Embed…</Menu.Item>}
          {alertable && <Menu.Item onClick={() => setAlerting(true)}>Alert me…</Menu.Item>}
        </Menu.Dropdown>
      </Menu>
      {embedding && (
        <ShownEmbedDialog
          dashboardId={dashboardId}
          component={component}
          data={props.data}
          components={components}
          view={view()}
          onClose={() => setEmbedding(false)}
        />
      )}
      {alerting && (
        <AlertDialog
          dashboardId={dashboardId}
          componentId={component.component_id}
          label={label}
          onClose={() => setAlerting(false)}
        />
      )}
    </div>
  );
});

/** The embed dialog, with the filters, version and reader's view (a table's header filters…) shown. */
function ShownEmbedDialog({
  dashboardId,
  component,
  data,
  components,
  view,
  onClose,
}: {
  dashboardId: string;
  component: DashboardComponent;
  data: unknown;
  components: readonly DashboardComponent[];
  view: ShownView;
  onClose: () => void;
}) {
  const [params] = useSearchParams();
  return (
    <EmbedDialog
      dashboardId={dashboardId}
      component={component}
      components={components}
      filters={view.filters}
      asOf={view.asOf}
      shown={readerViewQuery(component, data, params, components)}
      onClose={onClose}
    />
  );
}

function ExportItems({
  menu,
  anchor,
  report,
}: {
  menu: ComponentMenuProps;
  anchor: RefObject<HTMLButtonElement | null>;
  report: (notice: Notice) => void;
}) {
  const actions = useExportActions(menu, anchor, report);
  return (
    <>
      <Menu.Label>Export</Menu.Label>
      {menu.component.type === 'figure' && (
        <>
          <Menu.Item disabled={!actions.figureReady} onClick={actions.image('png')}>
            Download PNG
          </Menu.Item>
          <Menu.Item disabled={!actions.figureReady} onClick={actions.image('svg')}>
            Download SVG
          </Menu.Item>
        </>
      )}
      <Menu.Item disabled={!actions.hasData} onClick={actions.csv}>
        Download CSV
      </Menu.Item>
      <Menu.Item onClick={actions.spec}>Copy spec JSON</Menu.Item>
    </>
  );
}
