/**
 * The 1-based page number kept in the address bar (`?page=`, or another parameter when a screen
 * has two paged lists). A module of its own, without React, for the boot script too.
 */
export function pageOf(params: URLSearchParams, param = 'page'): number {
  return Math.max(1, Number(params.get(param) ?? '1') || 1);
}
