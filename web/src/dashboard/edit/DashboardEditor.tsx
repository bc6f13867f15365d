import { Alert, Button, Group, Loader, Menu, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { COMPONENT_TYPES, componentsInTab, type Dashboard, type DashboardComponent } from '@service/common';
import { useEffect, useReducer, useState } from 'react';
import { errorMessage } from '../../api/client.js';
import { useOpenTab } from '../DashboardTabs.js';
import { useDashboardData } from '../useDashboardData.js';
import { ComponentPanel, TYPE_LABELS } from './ComponentPanel.js';
import { type EditCellData, EditGrid, firstRowInView } from './EditGrid.js';
import { ConflictDialog, DiscardDialog } from './EditorDialogs.js';
import {
  draftOf,
  editorReducer,
  freshComponentId,
  initialEditorState,
  isUnsaved,
  mostUsedCollection,
} from './editor-state.js';
import { usePreviewData, useProjectCollections } from './queries.js';
import { TabsEditor } from './TabsEditor.js';
import { useLeavePrompt } from './useLeavePrompt.js';
import { useDashboardVersion } from './useSave.js';

function blank(type: DashboardComponent['type'], componentId: string, collectionId: string): DashboardComponent {
  const base = { component_id: componentId, data_collection_id: collectionId };
  switch (type) {
    case 'figure':
      return { ...base, type, chart: 'bar', agg: 'count' };
    case 'card':
      return { ...base, type, agg: 'count' };
    case 'interactive':
      return { ...base, type, widget: 'select', column: '' };
    case 'table':
      return { ...base, type, page_size: 25, sort: [] };
    case 'text':
      return { component_id: componentId, type, markdown: '' };
    case 'multiqc':
      return { ...base, type, plot: '' };
  }
}

const sameComponent = (a: DashboardComponent | undefined, b: DashboardComponent) =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * Edit mode of a dashboard (owners and editors): the grid to drag and resize on, a menu to add
 * components, the side panel to edit one, undo/redo, Save (with `If-Match`) and Cancel.
 */
export function DashboardEditor({ dashboard, onExit }: { dashboard: Dashboard; onExit: () => void }) {
  const dashboardId = dashboard.dashboard_id;
  const [state, dispatch] = useReducer(editorReducer, draftOf(dashboard), initialEditorState);
  const [loaded, setLoaded] = useState<unknown>(null);
  const [editing, setEditing] = useState<{ component: DashboardComponent; isNew: boolean; key: number } | null>(null);
  const [conflict, setConflict] = useState(false);
  const [discarding, setDiscarding] = useState(false);
  const [saveError, setSaveError] = useState<unknown>(null);
  // The component just added: scrolled to and highlighted.
  const [added, setAdded] = useState<string | null>(null);
  const version = useDashboardVersion(dashboardId);
  const collections = useProjectCollections(dashboard.project_id);
  const unsaved = isUnsaved(state);
  const leave = useLeavePrompt(unsaved);
  const { present } = state;
  // The grid shows the open tab (the address bar's, as in the view); new components go there.
  const [openTab, setOpenTab] = useOpenTab(present.tabs);
  const tabComponents = componentsInTab(present.components, present.tabs, openTab);
  const tabIds = new Set(tabComponents.map((component) => component.component_id));

  // biome-ignore lint/correctness/useExhaustiveDependencies: the version edit mode starts from, once.
  useEffect(() => {
    version.load().then(
      (answer) => {
        dispatch({ type: 'reset', draft: draftOf(answer.data) });
        setLoaded(true);
      },
      (error: unknown) => setLoaded(error),
    );
  }, [dashboardId]);

  useHotkeys([
    ['mod+Z', () => dispatch({ type: 'undo' })],
    ['mod+shift+Z', () => dispatch({ type: 'redo' })],
    ['mod+Y', () => dispatch({ type: 'redo' })],
  ]);

  // What the server has saved is drawn by the data route; new and changed components are previews.
  const savedById = new Map(state.saved.components.map((component) => [component.component_id, component]));
  const dataComponents = tabComponents.filter((component) => component.type !== 'text');
  const unchanged = dataComponents.filter((component) =>
    sameComponent(savedById.get(component.component_id), component),
  );
  const changed = dataComponents.filter((component) => !unchanged.includes(component));
  const savedData = useDashboardData(
    dashboardId,
    unchanged.map((component) => component.component_id),
    [],
    null,
  );
  const preview = usePreviewData(dashboardId, changed);
  const cellData = (component: DashboardComponent): EditCellData => {
    if (component.type === 'text') return { data: undefined, waiting: false, note: null };
    if (unchanged.includes(component)) {
      return {
        data: savedData.components.get(component.component_id),
        waiting: savedData.waiting.has(component.component_id),
        note: savedData.error === null ? null : errorMessage(savedData.error),
      };
    }
    if (preview.isError) return { data: undefined, waiting: false, note: errorMessage(preview.error) };
    if (preview.data?.unsupported)
      return { data: undefined, waiting: false, note: 'Shown once the dashboard is saved.' };
    return { data: preview.data?.components[component.component_id], waiting: preview.isFetching, note: null };
  };

  if (loaded === null) return <Loader aria-label="Opening the editor" />;
  if (loaded !== true) {
    return (
      <Alert color="red" role="alert" title="The editor could not open">
        {errorMessage(loaded)}
      </Alert>
    );
  }

  const startNew = (type: DashboardComponent['type']) =>
    setEditing({
      component: blank(
        type,
        freshComponentId(present, type),
        mostUsedCollection(present.components, type, collections.data?.[0]?.value ?? ''),
      ),
      isNew: true,
      key: Date.now(),
    });
  const exit = () => {
    leave.allowNext();
    onExit();
  };
  const save = async (overwrite = false) => {
    setSaveError(null);
    const outcome = await version.save(present, overwrite);
    if ('saved' in outcome) {
      setConflict(false);
      dispatch({ type: 'saved', draft: present });
      exit();
    } else if ('conflict' in outcome) {
      setConflict(true);
    } else {
      setConflict(false);
      setSaveError(outcome.failed);
    }
  };

  return (
    <Stack gap="sm">
      <Title order={1} size="h3">
        Editing “{state.saved.title}”
      </Title>
      <Group
        justify="space-between"
        align="flex-end"
        className="dashboard-editor-toolbar"
        role="toolbar"
        aria-label="Dashboard editor"
      >
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Title"
            value={present.title}
            onChange={(event) => dispatch({ type: 'title', title: event.currentTarget.value })}
            w={260}
          />
          <Menu position="bottom-start">
            <Menu.Target>
              <Button>Add component</Button>
            </Menu.Target>
            <Menu.Dropdown>
              {COMPONENT_TYPES.map((type) => (
                <Menu.Item key={type} onClick={() => startNew(type)}>
                  {TYPE_LABELS[type]}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          <Tooltip label="Undo (Ctrl+Z)">
            <Button variant="default" disabled={state.past.length === 0} onClick={() => dispatch({ type: 'undo' })}>
              Undo
            </Button>
          </Tooltip>
          <Tooltip label="Redo (Ctrl+Shift+Z)">
            <Button variant="default" disabled={state.future.length === 0} onClick={() => dispatch({ type: 'redo' })}>
              Redo
            </Button>
          </Tooltip>
        </Group>
        <Group gap="xs" align="center">
          <Text size="sm" c="dimmed" aria-live="polite">
            {unsaved ? 'Unsaved changes' : 'No changes'}
          </Text>
          <Button variant="default" onClick={() => (unsaved ? setDiscarding(true) : exit())}>
            Cancel
          </Button>
          <Button onClick={() => void save()} loading={version.saving} disabled={present.title.trim() === ''}>
            Save
          </Button>
        </Group>
      </Group>
      {saveError !== null && (
        <Alert color="red" role="alert" title="Not saved" withCloseButton onClose={() => setSaveError(null)}>
          {errorMessage(saveError)}
        </Alert>
      )}
      <TabsEditor
        tabs={present.tabs}
        components={present.components}
        open={openTab}
        onOpen={setOpenTab}
        onChange={(change) => dispatch({ type: 'tabs', change })}
      />
      <div className="dashboard-editor-body">
        <div className="dashboard-editor-main">
          {tabComponents.length === 0 ? (
            <Text c="dimmed">
              {present.tabs.length === 0 ? 'No components yet' : 'This tab has no components yet'}: add one with “Add
              component”.
            </Text>
          ) : (
            <EditGrid
              dashboardId={dashboardId}
              components={tabComponents}
              layout={present.layout.filter((item) => tabIds.has(item.component_id))}
              selected={editing?.component.component_id ?? null}
              added={added}
              cellData={cellData}
              onLayout={(layout) => dispatch({ type: 'layout', layout, tabId: openTab })}
              otherTabs={present.tabs.filter((tab) => tab.tab_id !== openTab)}
              onMoveToTab={(componentId, tabId) =>
                dispatch({ type: 'tabs', change: { op: 'component', componentId, tabId } })
              }
              onEdit={(componentId) => {
                const component = present.components.find((candidate) => candidate.component_id === componentId);
                if (component) setEditing({ component, isNew: false, key: Date.now() });
              }}
              onRemove={(componentId) => {
                dispatch({ type: 'remove', componentId });
                if (editing?.component.component_id === componentId) setEditing(null);
              }}
            />
          )}
        </div>
        {editing !== null && (
          <ComponentPanel
            key={editing.key}
            dashboardId={dashboardId}
            projectId={dashboard.project_id}
            initial={editing.component}
            isNew={editing.isNew}
            onClose={() => setEditing(null)}
            onApply={(component) => {
              dispatch(
                editing.isNew
                  ? { type: 'add', component, tabId: openTab, fromRow: firstRowInView() }
                  : { type: 'update', componentId: editing.component.component_id, component },
              );
              if (editing.isNew) setAdded(component.component_id);
              setEditing(null);
            }}
          />
        )}
      </div>
      <ConflictDialog
        opened={conflict}
        busy={version.saving}
        onClose={() => setConflict(false)}
        onOverwrite={() => void save(true)}
        onReload={() =>
          void version.load().then((answer) => {
            dispatch({ type: 'reset', draft: draftOf(answer.data) });
            setEditing(null);
            setConflict(false);
          }, setSaveError)
        }
      />
      <DiscardDialog
        opened={discarding}
        onClose={() => setDiscarding(false)}
        onDiscard={() => {
          setDiscarding(false);
          exit();
        }}
      />
      {leave.prompt}
    </Stack>
  );
}
