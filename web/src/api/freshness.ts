/**
 * How long an answer fetched just before its screen mounted counts as fresh: the app starts the
 * first screen's queries before its first render (first-screen-queries.ts), and the project page
 * the preview's before the explorer mounts, and those mounts must not ask the server again. Writes
 * refresh what they change explicitly.
 */
export const JUST_FETCHED_MS = 10_000;
