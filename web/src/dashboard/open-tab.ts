/**
 * The tab a dashboard opens on: the one `?tab=` names, else its first; null without tabs. Without
 * dependencies: the boot script picks it too (web/src/boot/first-screen.ts), to ask for its data.
 */
export function openTabId(tabs: readonly { tab_id: string }[], asked: string | null): string | null {
  return tabs.find((tab) => tab.tab_id === asked)?.tab_id ?? tabs[0]?.tab_id ?? null;
}
