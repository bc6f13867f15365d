/**
 * Testing Library's waits (`waitFor`, `findBy…`) give up after 1 s by default: a wall-clock limit
 * that a loaded CI host (two test files at once, Chromium beside them) can pass while the page is
 * still on its way to the awaited state. In the jsdom tests they wait for the condition up to 20 s,
 * inside each test's 30 s.
 */
if ('document' in globalThis) {
  const { configure } = await import('@testing-library/dom');
  configure({ asyncUtilTimeout: 20_000 });
}
