import { type ChildProcess, fork } from 'node:child_process';
import type { TargetMessage } from './child-target.js';

/** A child Node process answering one message per message it is sent (a DuckDB baseline, a server). */
export interface ChildWorker<Answer> {
  pid: number;
  /** What the child said when it was ready (a server's `url`). */
  url: string;
  /** Sends `message` and waits for the child's next answer; a `failed` answer rejects. */
  ask(message: object): Promise<Answer>;
  /** Disconnects, which tells the child to finish and exit, and waits for it (killing it if it hangs). */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * Forks `script args` and waits for its `{type: 'ready'}`. Messages are answered in order, one at
 * a time: the benchmark times what the child does, so two requests never overlap. Messages use
 * the structured clone ("advanced") serialization, so bigints and dates cross as they are.
 */
export async function startWorker<Answer extends { type: string }>(
  script: string,
  args: string[],
  execArgv: string[] = [],
): Promise<ChildWorker<Answer>> {
  const child: ChildProcess = fork(script, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
    execArgv,
  });
  let waiting: { resolve: (message: Answer | TargetMessage) => void; reject: (error: Error) => void } | null = null;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  void exited.then(() => waiting?.reject(new Error(`${script} ${args[0] ?? ''}: the process exited`)));
  child.on('message', (message: Answer | TargetMessage) => {
    const current = waiting;
    waiting = null;
    if (message.type === 'failed') current?.reject(new Error((message as { message: string }).message));
    else current?.resolve(message);
  });
  const next = () =>
    new Promise<Answer | TargetMessage>((resolve, reject) => {
      waiting = { resolve, reject };
    });
  const stop = async () => {
    if (child.connected) child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
  let ready: Answer | TargetMessage;
  try {
    ready = await next();
  } finally {
    clearTimeout(timer);
  }
  return {
    pid: child.pid ?? 0,
    url: ready.type === 'ready' ? (ready as { url: string }).url : '',
    async ask(message: object): Promise<Answer> {
      const answer = next();
      child.send(message);
      return (await answer) as Answer;
    },
    stop,
  };
}
