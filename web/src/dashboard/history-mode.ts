/**
 * How a change of the address bar's view enters the browser's history: `push` for a committed
 * choice (a click, a released slider, a chosen option), so Back undoes it; `replace` for the steps
 * on the way there.
 */
export type HistoryMode = 'push' | 'replace';
