/**
 * Runs `tasks` at most `limit` at a time and yields their results as each finishes (not in the
 * order given), so a caller can stream the fast ones while the slow ones still run. Tasks must
 * not reject: each settles its own failure into its result.
 */
export async function* inCompletionOrder<T>(tasks: readonly (() => Promise<T>)[], limit: number): AsyncGenerator<T> {
  const running = new Map<number, Promise<{ index: number; result: T }>>();
  let next = 0;
  const start = () => {
    const index = next++;
    const task = tasks[index];
    if (task !== undefined)
      running.set(
        index,
        task().then((result) => ({ index, result })),
      );
  };
  while (next < tasks.length && running.size < limit) start();
  while (running.size > 0) {
    const { index, result } = await Promise.race(running.values());
    running.delete(index);
    if (next < tasks.length) start();
    yield result;
  }
}
