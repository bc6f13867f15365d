import { Tabs } from '@mantine/core';
import type { DashboardTab } from '@service/common';
import { useSearchParams } from 'react-router';
import { openTabId } from './open-tab.js';
import { TabIconMark } from './tab-icons.js';

/**
 * The open tab, from `?tab=` in the address bar so a link opens it (the first tab when the
 * address names none or one the dashboard lacks; null without tabs), and the change that opens
 * another (a new history entry, so Back returns to the previous tab).
 */
export function useOpenTab(tabs: readonly DashboardTab[]): [string | null, (tabId: string) => void] {
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const open = openTabId(tabs, asked);
  const openTab = (tabId: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set('tab', tabId);
      return next;
    });
  return [open, openTab];
}

/**
 * The dashboard's tabs as a tab list (keyboard: arrow keys move between tabs), each with its icon
 * (tab-icons.tsx) or, without one, a dot of its accent colour.
 */
export function DashboardTabs({
  tabs,
  open,
  onOpen,
}: {
  tabs: readonly DashboardTab[];
  open: string | null;
  onOpen: (tabId: string) => void;
}) {
  return (
    <Tabs value={open} onChange={(value) => value !== null && onOpen(value)} keepMounted={false}>
      <Tabs.List aria-label="Dashboard tabs">
        {tabs.map((tab) => (
          <Tabs.Tab
            key={tab.tab_id}
            value={tab.tab_id}
            color={tab.color}
            leftSection={
              tab.icon !== undefined ? (
                <TabIconMark icon={tab.icon} color={tab.color} />
              ) : tab.color ? (
                <TabMark color={tab.color} />
              ) : undefined
            }
          >
            {tab.title}
          </Tabs.Tab>
        ))}
      </Tabs.List>
    </Tabs>
  );
}

/** A small dot of the tab's accent colour (decorative: the title names the tab). */
function TabMark({ color }: { color: string }) {
  return <span aria-hidden="true" className="dashboard-tab-mark" style={{ background: color }} />;
}
