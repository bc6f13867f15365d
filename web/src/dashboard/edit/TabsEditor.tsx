import { Button, Group, Modal, Radio, Select, Stack, Text, TextInput } from '@mantine/core';
import {
  componentsInTab,
  type DashboardComponent,
  type DashboardTab,
  isTabIcon,
  TAB_ICONS,
  type TabIcon,
} from '@service/common';
import { useState } from 'react';
import { DashboardTabs } from '../DashboardTabs.js';
import { TabIconMark } from '../tab-icons.js';
import { newTabId, type TabOp } from './editor-tabs.js';

/**
 * Edit mode's tabs: the tab list (the open tab is the one the grid shows), and for the open tab a
 * title field, its icon, Move left / right and Delete; Add tab makes a new last tab and opens it. Deleting a
 * tab that holds components asks where they go.
 */
export function TabsEditor({
  tabs,
  components,
  open,
  onOpen,
  onChange,
}: {
  tabs: readonly DashboardTab[];
  components: readonly DashboardComponent[];
  open: string | null;
  onOpen: (tabId: string) => void;
  onChange: (change: TabOp) => void;
}) {
  const [deleting, setDeleting] = useState<DashboardTab | null>(null);
  const index = tabs.findIndex((tab) => tab.tab_id === open);
  const current = tabs[index];
  const add = () => {
    const tabId = newTabId(tabs);
    onChange({ op: 'add', tabId, title: `Tab ${tabId.replace('tab-', '')}` });
    onOpen(tabId);
  };
  const remove = (tab: DashboardTab) => {
    if (componentsInTab(components, tabs, tab.tab_id).length > 0) setDeleting(tab);
    else onChange({ op: 'delete', tabId: tab.tab_id, moveTo: null });
  };
  return (
    <Stack gap={6} role="group" aria-label="Tabs">
      {tabs.length > 0 && <DashboardTabs tabs={tabs} open={open} onOpen={onOpen} />}
      <Group gap="xs" align="flex-end">
        {current !== undefined && (
          <>
            <TextInput
              label="Tab title"
              value={current.title}
              onChange={(event) => onChange({ op: 'rename', tabId: current.tab_id, title: event.currentTarget.value })}
              error={current.title.trim() === '' ? 'A tab needs a title' : undefined}
              w={220}
            />
            <TabIconSelect
              icon={current.icon}
              onChange={(icon) => onChange({ op: 'icon', tabId: current.tab_id, icon })}
            />
            <Button
              variant="default"
              disabled={index === 0}
              onClick={() => onChange({ op: 'move', tabId: current.tab_id, by: -1 })}
            >
              Move tab left
            </Button>
            <Button
              variant="default"
              disabled={index === tabs.length - 1}
              onClick={() => onChange({ op: 'move', tabId: current.tab_id, by: 1 })}
            >
              Move tab right
            </Button>
            <Button variant="default" color="red" onClick={() => remove(current)}>
              Delete tab
            </Button>
          </>
        )}
        <Button variant="default" onClick={add}>
          {tabs.length === 0 ? 'Add tabs' : 'Add tab'}
        </Button>
      </Group>
      {deleting !== null && (
        <DeleteTabDialog
          tab={deleting}
          others={tabs.filter((tab) => tab.tab_id !== deleting.tab_id)}
          count={componentsInTab(components, tabs, deleting.tab_id).length}
          onClose={() => setDeleting(null)}
          onDelete={(moveTo) => {
            onChange({ op: 'delete', tabId: deleting.tab_id, moveTo });
            setDeleting(null);
          }}
        />
      )}
    </Stack>
  );
}

/** The open tab's icon: one of TAB_ICONS, each drawn in the list, or none (cleared). */
function TabIconSelect({ icon, onChange }: { icon: TabIcon | undefined; onChange: (icon: TabIcon | null) => void }) {
  return (
    <Select
      label="Tab icon"
      placeholder="None"
      data={[...TAB_ICONS]}
      value={icon ?? null}
      onChange={(value) => onChange(isTabIcon(value) ? value : null)}
      renderOption={({ option }) => (
        <Group gap="xs" wrap="nowrap">
          {isTabIcon(option.value) && <TabIconMark icon={option.value} />}
          {option.label}
        </Group>
      )}
      leftSection={icon !== undefined ? <TabIconMark icon={icon} /> : undefined}
      clearable
      searchable
      w={200}
    />
  );
}

/** Where a deleted tab's components go: another tab, or away with it (the last tab's stay, untabbed). */
function DeleteTabDialog({
  tab,
  others,
  count,
  onClose,
  onDelete,
}: {
  tab: DashboardTab;
  others: readonly DashboardTab[];
  count: number;
  onClose: () => void;
  onDelete: (moveTo: string | null) => void;
}) {
  const [choice, setChoice] = useState<string>(others[0]?.tab_id ?? '');
  const things = count === 1 ? 'one component' : `${count} components`;
  return (
    <Modal opened onClose={onClose} title={`Delete the tab “${tab.title}”?`}>
      <Stack gap="sm">
        {others.length === 0 ? (
          <Text size="sm">It is the only tab: its {things} stay, on a dashboard without tabs.</Text>
        ) : (
          <Radio.Group label={`It holds ${things}. Where do they go?`} value={choice} onChange={setChoice}>
            <Stack gap={6} mt={6}>
              {others.map((other) => (
                <Radio key={other.tab_id} value={other.tab_id} label={`Move them to “${other.title}”`} />
              ))}
              <Radio value="" label="Delete them with the tab" />
            </Stack>
          </Radio.Group>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Keep the tab
          </Button>
          <Button color="red" onClick={() => onDelete(choice === '' ? null : choice)}>
            Delete tab
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
