import { type ChildProcess, fork } from 'node:child_process';

/** Messages between the benchmark and a server it runs in a child process. */
export type TargetMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string };

export interface RunningTarget {
  url: string;
  /** The child's process id (to read its CPU usage). */
  pid: number;
  /** Asks the child to close its server and waits for it to exit (killing it if it hangs). */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess): Promise<void> {
  const done = exited(child);
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await done;
  clearTimeout(timer);
}

/**
 * Starts `script args` as a child Node process that runs one server and reports its URL. The server
 * gets its own process (its own event loop and core) so that it does not share a thread with the
 * load generator, as it would not in production.
 */
export function startTarget(script: string, args: string[], execArgv: string[] = []): Promise<RunningTarget> {
  const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
  return new Promise<RunningTarget>((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      void stopChild(child).finally(() => reject(error));
    };
    const timer = setTimeout(
      () => fail(new Error(`${script} ${args.join(' ')}: not ready after 60 s`)),
      START_TIMEOUT_MS,
    );
    child.once('error', fail);
    child.once('exit', (code, signal) =>
      fail(new Error(`${script} ${args[0] ?? ''} exited early (${signal ?? code})`)),
    );
    child.once('message', (message: TargetMessage) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      if (message.type === 'failed') {
        fail(new Error(message.message));
        return;
      }
      resolve({ url: message.url, pid: child.pid ?? 0, stop: () => stopChild(child) });
    });
  });
}

/**
 * Runs `script args` as a child Node process to its end and answers the one message of type
 * `type` it sent; a `failed` message, or none, rejects.
 */
export async function childReport<T extends { type: string }>(
  script: string,
  args: string[],
  type: T['type'],
): Promise<T> {
  const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let report: T | undefined;
  let failure: string | undefined;
  child.on('message', (message: T | TargetMessage) => {
    if (message.type === type) report = message as T;
    else if (message.type === 'failed') failure = (message as { message: string }).message;
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', () => resolve());
    child.once('error', reject);
  });
  if (report === undefined) {
    throw new Error(
      `${args[0] ?? script}: ${failure ?? `the child exited without a report (${child.signalCode ?? child.exitCode})`}`,
    );
  }
  return report;
}
