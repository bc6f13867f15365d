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
import { type RefObject, useRef, useState } from 'react';
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
  filters: readonly DashboardFilter[];
  asOf: AsOf | null;
  /** Every component of the dashboard (the embed dialog names a token's component by its title). */
  components: readonly DashboardComponent[];
  /** The caller may create and revoke embed tokens (owners and editors). */
  canEmbed: boolean;
  /** The dashboard's colour per value, so an image draws what the cell draws. */
  colors?: ColorAssignment | undefined;
}

type Notice = { kind: 'done' | 'failed'; text: string } | null;

/** The size a figure is drawn at in its cell, for images of it (a default before it has been drawn). */
function drawnSize(anchor: HTMLElement | null): { width: number; height: number } {
  const chart = anchor?.closest('[data-component-id]')?.querySelector<HTMLElement>('[data-chart-state]');
  const width = chart?.clientWidth ?? 0;
  const height = chart?.clientHeight ?? 0;
  return width > 0 && height > 0 ? { width, height } : { width: 800, height: 500 };
}

/**
 * The export actions of a component, each reporting in `notice` whether it worked. Images and CSV
 * of figures and cards come from what the cell shows; a table's CSV and the spec from the server,
 * under the filters and version shown.
 */
function useExportActions(
  { dashboardId, component, data, filters, asOf, colors, components }: ComponentMenuProps,
  anchor: RefObject<HTMLButtonElement | null>,
) {
  const api = useApi();
  const theme = useComputedColorScheme('light', { getInitialValueInEffect: false });
  const [notice, setNotice] = useState<Notice>(null);
  const [params] = useSearchParams();
  const name = component.title || component.component_id;
  const query = {
    filters: filters.length === 0 ? undefined : JSON.stringify(filters),
    as_of: asOf === null ? undefined : typeof asOf === 'string' ? asOf : JSON.stringify(asOf),
  };
  // As shown: a table's header filters, order and columns, a coverage track's contig (docs/export.md).
  const shown = readerViewQuery(component, data, params, components);

  const run = (done: string, action: () => Promise<void> | void) => async () => {
    setNotice(null);
    try {
      await action();
      setNotice({ kind: 'done', text: done });
    } catch (error) {
      setNotice({ kind: 'failed', text: errorMessage(error) });
    }
  };

  // The cell's own reading of its answer (parseOnce): this menu renders with each line streamed.
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
        query: { ...query, ...shown },
        accept: 'text/csv',
      });
    }
    saveFile(blob, exportFilename(name, 'csv'));
  });
  const spec = run('Spec JSON copied', async () => {
    const answer = await api.request(`/export/components/${dashboardId}/${component.component_id}`, exportSpecSchema, {
      query: { format: 'spec', ...query, ...shown },
    });
    await copyText(JSON.stringify(answer, null, 2));
  });

  const figureReady = figure !== undefined;
  const hasData = figureReady || card !== undefined || component.type === 'table';
  return { notice, clearNotice: () => setNotice(null), image, csv, spec, figureReady, hasData, shown };
}

/**
 * A component's menu: "Export" (PNG and SVG of a figure, its data as CSV, its spec JSON) and
 * "Embed…" (owners and editors).
 */
export function ComponentMenu(props: ComponentMenuProps) {
  const { dashboardId, component, filters, asOf, components, canEmbed } = props;
  const anchor = useRef<HTMLButtonElement>(null);
  const [embedding, setEmbedding] = useState(false);
  const [alerting, setAlerting] = useState(false);
  // Any signed-in reader may be alerted about a card (docs/live-data.md "Alerts").
  const { user } = useAuth();
  const alertable = component.type === 'card' && user !== null;
  const actions = useExportActions(props, anchor);
  const { notice } = actions;
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
      <Menu position="bottom-end" withinPortal onOpen={actions.clearNotice}>
        <Menu.Target>
          <ActionIcon ref={anchor} variant="subtle" color="gray" size="sm" aria-label={`Menu of ${label}`}>
            <span aria-hidden="true">⋯</span>
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          {exportable && <ExportItems isFigure={component.type === 'figure'} actions={actions} />}
          {exportable && embeddable && <Menu.Divider />}
          {embeddable && <Menu.Item onClick={() => setEmbedding(true)}>Embed…</Menu.Item>}
          {alertable && <Menu.Item onClick={() => setAlerting(true)}>Alert me…</Menu.Item>}
        </Menu.Dropdown>
      </Menu>
      {embedding && (
        <EmbedDialog
          dashboardId={dashboardId}
          component={component}
          components={components}
          filters={filters}
          asOf={asOf}
          shown={actions.shown}
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
}

function ExportItems({ isFigure, actions }: { isFigure: boolean; actions: ReturnType<typeof useExportActions> }) {
  return (
    <>
      <Menu.Label>Export</Menu.Label>
      {isFigure && (
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
