import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The built CLI (`npx tsc -b`): what an operator runs, as separate OS processes. */
export const CLI = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));

export interface LogLine {
  level: number;
  msg: string;
  jobId?: string;
  [field: string]: unknown;
}

/** One `service …` process with its output kept for the test to read. */
export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** The JSON log lines it wrote so far (pino writes them to stdout). */
  logs(): LogLine[];
  /** The jobs this process started, in order, from its own log (`job started`, needs log level info). */
  startedJobs(): string[];
  /** Whether it still runs (a process killed by a signal has no exit code either). */
  running(): boolean;
  /** Resolves with the exit code (null when ended by a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves once `pattern` appears in stderr; rejects if the process exits first. */
  waitForStderr(pattern: RegExp): Promise<RegExpExecArray>;
}

const spawned = new Set<ServiceProcess>();

// vitest may end without running afterAll (a crash, a signal): no process of ours outlives it.
process.once('exit', () => {
  for (const service of spawned) if (service.running()) service.child.kill('SIGKILL');
});

/**
 * Spawns `node cli/dist/main.js …args` with only `env` (plus PATH): the machine's SERVICE_*
 * settings never leak in.
 */
export function spawnService(name: string, args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const stderrWaiters = new Set<() => void>();
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    for (const check of stderrWaiters) check();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logs = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  const service: ServiceProcess = {
    name,
    child,
    pid: child.pid ?? -1,
    stdout: () => stdout,
    stderr: () => stderr,
    logs,
    startedJobs: () =>
      logs()
        .filter((line) => line.msg === 'job started' && typeof line.jobId === 'string')
        .map((line) => line.jobId as string),
    running: () => child.exitCode === null && child.signalCode === null,
    exited,
    waitForStderr(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stderr);
          if (match) {
            stderrWaiters.delete(check);
            resolve(match);
          }
        };
        stderrWaiters.add(check);
        check();
        void exited.then((code) => {
          if (stderrWaiters.delete(check)) {
            reject(new Error(`${name} exited with ${code} before printing ${pattern}: ${stderr.slice(-2000)}`));
          }
        });
      });
    },
  };
  spawned.add(service);
  void exited.then(() => spawned.delete(service));
  return service;
}

/** `service serve`, resolved once it listens, with the address it listens on. */
export async function startServe(name: string, env: Record<string, string>): Promise<ServiceProcess & { url: string }> {
  const service = spawnService(name, ['serve'], env);
  const match = await service.waitForStderr(/listening on (http:\/\/[^;\s)]+)/);
  return Object.assign(service, { url: match[1] as string });
}

/** `service worker`, resolved once it runs (its notification connection is open by then). */
export async function startWorker(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const service = spawnService(name, ['worker', '--concurrency', '1'], env);
  await service.waitForStderr(/Worker running/);
  return service;
}

/** Kills every process still running (SIGKILL) and waits for them to be gone. */
export async function killAllServices(): Promise<void> {
  const running = [...spawned];
  for (const service of running) if (service.running()) service.child.kill('SIGKILL');
  await Promise.all(running.map((service) => service.exited));
}
