import { Alert, Button, Group, Loader, Menu, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import {
  COMPONENT_TYPES,
  componentsInTab,
  type Dashboard,
  type DashboardComponent,
  DEFAULT_GALLERY_PAGE,
} from '@service/common';
import { type Dispatch, useState } from 'react';
import { errorMessage } from '../../api/client.js';
import { useOpenTab } from '../DashboardTabs.js';
import { ComponentPanel, TYPE_LABELS } from './ComponentPanel.js';
import { type EditCellData, EditGrid, firstRowInView } from './EditGrid.js';
import { ConflictDialog, DiscardDialog } from './EditorDialogs.js';
import {
  type Draft,
  type EditorAction,
  type EditorState,
  freshComponentId,
  isUnsaved,
  mostUsedCollection,
} from './editor-state.js';
import { useProjectCollections } from './queries.js';
import { TabsEditor } from './TabsEditor.js';
import { useEditCellData, useEditorDraft, useSaveDashboard } from './useEditorSession.js';
import { useLeavePrompt } from './useLeavePrompt.js';

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
    case 'section':
      return { component_id: componentId, type, title: 'New section' };
    case 'image':
      return { ...base, type, page_size: DEFAULT_GALLERY_PAGE };
  }
}

type Editing = { component: DashboardComponent; isNew: boolean; key: number };

/**
 * The component open in the side panel (a new one or one of the draft's) and the one just added
 * (scrolled to and highlighted). Applying the panel adds the new component to the open tab, in
 * the first free slot from the first row in view, or replaces the edited one.
 */
function useComponentEditing(
  present: Draft,
  dispatch: Dispatch<EditorAction>,
  openTab: string | null,
  defaultCollection: string,
) {
  const [editing, setEditing] = useState<Editing | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const startNew = (type: DashboardComponent['type']) =>
    setEditing({
      component: blank(
        type,
        freshComponentId(present, type),
        mostUsedCollection(present.components, type, defaultCollection),
      ),
      isNew: true,
      key: Date.now(),
    });
  const edit = (componentId: string) => {
    const component = present.components.find((candidate) => candidate.component_id === componentId);
    if (component) setEditing({ component, isNew: false, key: Date.now() });
  };
  const remove = (componentId: string) => {
    dispatch({ type: 'remove', componentId });
    if (editing?.component.component_id === componentId) setEditing(null);
  };
  const apply = (component: DashboardComponent) => {
    if (editing === null) return;
    dispatch(
      editing.isNew
        ? { type: 'add', component, tabId: openTab, fromRow: firstRowInView() }
        : { type: 'update', componentId: editing.component.component_id, component },
    );
    if (editing.isNew) setAdded(component.component_id);
    setEditing(null);
  };
  return { editing, added, startNew, edit, remove, apply, close: () => setEditing(null) };
}

/**
 * Edit mode of a dashboard (owners and editors): the grid to drag and resize on, a menu to add
 * components, the side panel to edit one, undo/redo, Save (with `If-Match`) and Cancel.
 */
export function DashboardEditor({ dashboard, onExit }: { dashboard: Dashboard; onExit: () => void }) {
  const dashboardId = dashboard.dashboard_id;
  const { state, dispatch, loaded, version } = useEditorDraft(dashboard);
  const [discarding, setDiscarding] = useState(false);
  const collections = useProjectCollections(dashboard.project_id);
  const unsaved = isUnsaved(state);
  const leave = useLeavePrompt(unsaved);
  const { present } = state;
  // The grid shows the open tab (the address bar's, as in the view); new components go there.
  const [openTab, setOpenTab] = useOpenTab(present.tabs);
  const cellData = useEditCellData(
    dashboardId,
    componentsInTab(present.components, present.tabs, openTab),
    state.saved.components,
  );
  const editing = useComponentEditing(present, dispatch, openTab, collections.data?.[0]?.value ?? '');
  const exit = () => {
    leave.allowNext();
    onExit();
  };
  const saving = useSaveDashboard({ version, present, dispatch, onSaved: exit });

  if (loaded === null) return <Loader aria-label="Opening the editor" />;
  if (loaded !== true) {
    return (
      <Alert color="red" role="alert" title="The editor could not open">
        {errorMessage(loaded)}
      </Alert>
    );
  }

  return (
    <Stack gap="sm">
      <Title order={1} size="h3">
        Editing “{state.saved.title}”
      </Title>
      <EditorToolbar
        state={state}
        dispatch={dispatch}
        unsaved={unsaved}
        saving={saving.saving}
        onAdd={editing.startNew}
        onCancel={() => (unsaved ? setDiscarding(true) : exit())}
        onSave={() => void saving.save()}
      />
      {saving.saveError !== null && (
        <Alert color="red" role="alert" title="Not saved" withCloseButton onClose={saving.clearSaveError}>
          {errorMessage(saving.saveError)}
        </Alert>
      )}
      <EditorWorkspace
        dashboard={dashboard}
        present={present}
        dispatch={dispatch}
        tabs={[openTab, setOpenTab]}
        cellData={cellData}
        editing={editing}
      />
      <ConflictDialog
        opened={saving.conflict}
        busy={saving.saving}
        onClose={saving.closeConflict}
        onOverwrite={() => void saving.save(true)}
        onReload={() => saving.reload(editing.close)}
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

/** The title, "Add component", undo and redo; on the right whether there are changes, Cancel and Save. */
function EditorToolbar({
  state,
  dispatch,
  unsaved,
  saving,
  onAdd,
  onCancel,
  onSave,
}: {
  state: EditorState;
  dispatch: Dispatch<EditorAction>;
  unsaved: boolean;
  saving: boolean;
  onAdd: (type: DashboardComponent['type']) => void;
  onCancel: () => void;
  onSave: () => void;
}) {
  const { present } = state;
  return (
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
              <Menu.Item key={type} onClick={() => onAdd(type)}>
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
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button onClick={onSave} loading={saving} disabled={present.title.trim() === ''}>
          Save
        </Button>
      </Group>
    </Group>
  );
}

/** The tabs, the open tab's grid and the side panel editing one component. */
function EditorWorkspace({
  dashboard,
  present,
  dispatch,
  tabs: [openTab, setOpenTab],
  cellData,
  editing,
}: {
  dashboard: Dashboard;
  present: Draft;
  dispatch: Dispatch<EditorAction>;
  tabs: [string | null, (tabId: string) => void];
  cellData: (component: DashboardComponent) => EditCellData;
  editing: ReturnType<typeof useComponentEditing>;
}) {
  const dashboardId = dashboard.dashboard_id;
  return (
    <>
      <TabsEditor
        tabs={present.tabs}
        components={present.components}
        open={openTab}
        onOpen={setOpenTab}
        onChange={(change) => dispatch({ type: 'tabs', change })}
      />
      <div className="dashboard-editor-body">
        <div className="dashboard-editor-main">
          <TabGrid
            dashboardId={dashboardId}
            present={present}
            openTab={openTab}
            tabComponents={componentsInTab(present.components, present.tabs, openTab)}
            cellData={cellData}
            editing={editing}
            dispatch={dispatch}
          />
        </div>
        {editing.editing !== null && (
          <ComponentPanel
            key={editing.editing.key}
            dashboardId={dashboardId}
            projectId={dashboard.project_id}
            initial={editing.editing.component}
            isNew={editing.editing.isNew}
            onClose={editing.close}
            onApply={editing.apply}
          />
        )}
      </div>
    </>
  );
}

/** The open tab's components on the edit grid, or what to do while it has none. */
function TabGrid({
  dashboardId,
  present,
  openTab,
  tabComponents,
  cellData,
  editing,
  dispatch,
}: {
  dashboardId: string;
  present: Draft;
  openTab: string | null;
  tabComponents: DashboardComponent[];
  cellData: (component: DashboardComponent) => EditCellData;
  editing: ReturnType<typeof useComponentEditing>;
  dispatch: Dispatch<EditorAction>;
}) {
  if (tabComponents.length === 0) {
    return (
      <Text c="dimmed">
        {present.tabs.length === 0 ? 'No components yet' : 'This tab has no components yet'}: add one with “Add
        component”.
      </Text>
    );
  }
  const tabIds = new Set(tabComponents.map((component) => component.component_id));
  return (
    <EditGrid
      dashboardId={dashboardId}
      components={tabComponents}
      layout={present.layout.filter((item) => tabIds.has(item.component_id))}
      selected={editing.editing?.component.component_id ?? null}
      added={editing.added}
      cellData={cellData}
      onLayout={(layout) => dispatch({ type: 'layout', layout, tabId: openTab })}
      otherTabs={present.tabs.filter((tab) => tab.tab_id !== openTab)}
      onMoveToTab={(componentId, tabId) => dispatch({ type: 'tabs', change: { op: 'component', componentId, tabId } })}
      onEdit={editing.edit}
      onRemove={editing.remove}
    />
  );
}
