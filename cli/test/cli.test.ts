import { mkdtemp, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrationProvider } from '../../server/src/db/migrations/index.js';
import {
  ADMIN,
  call,
  createTestDatabase,
  createUser,
  describeEachDialect,
  login,
  startTestServer,
  type TestDatabase,
} from '../../test/support/test-server.js';
import { exitOf, runCli, runCliRecordingModules, startCliServer } from './run-cli.js';

// A hang guard, not a speed check: a case here starts up to five Node processes that each load the
// server and DuckDB, which on a loaded two-core machine has taken more than the default 30 s.
vi.setConfig({ testTimeout: 120_000 });

describe('service --help', () => {
  it.each([
    [[], ['serve', 'migrate', 'config', 'user', 'project', 'dashboard', 'worker', 'ingest']],
    [
      ['dashboard', 'export'],
      ['--out', 'SERVICE_TOKEN', 'dashboards/schema'],
    ],
    [
      ['dashboard', 'import'],
      ['--project', 'file:line:column', 'Example'],
    ],
    [['serve'], ['--port', 'SIGTERM']],
    [['migrate'], ['schema']],
    [['config', 'check'], ['redacted']],
    [
      ['user', 'create'],
      ['--admin', '--password-stdin', 'Example'],
    ],
    [
      ['user', 'delete'],
      ['--transfer-to', '--delete-owned', '--dry-run', 'one transaction', 'Example'],
    ],
  ])('explains %j', async (args, expected) => {
    const result = await runCli([...args, '--help']);
    expect(result.code).toBe(0);
    for (const text of expected) expect(result.stdout).toContain(text);
  });

  it.each([[['--help']], [['ingest', '--help']], [['config', 'check']]])(
    'runs %j without loading the server (Fastify, DuckDB, the drivers)',
    async (args) => {
      const listing = join(await mkdtemp(join(tmpdir(), 'cli-modules-')), 'loaded.txt');
      const result = await runCliRecordingModules(args, listing);
      expect(result.code, result.stderr).toBe(0);
      const loaded = (await readFile(listing, 'utf8')).split('\n');
      expect(loaded.some((url) => url.endsWith('/server/dist/basics.js'))).toBe(true);
      expect(
        loaded.filter((url) =>
          /\/server\/dist\/index\.js$|\/node_modules\/(fastify|@duckdb|pg|better-sqlite3)\//.test(url),
        ),
      ).toEqual([]);
    },
  );

  it('rejects an unknown command with a hint', async () => {
    const result = await runCli(['serv']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'serv'");
  });
});

describe('service config check', () => {
  it('prints the effective settings with secrets redacted', async () => {
    const result = await runCli(['config', 'check'], {
      SERVICE_DATA_DIR: '/tmp/service-config-check',
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'root@example.org',
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'very-secret-password',
      SERVICE_DATABASE_URL: 'postgres://svc:db-password@db.example.org/service',
      SERVICE_PROT: '1',
      SERVICE_DUCKDB_MEMORY_LIMIT: '1GiB',
    });
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout);
    expect(shown.dataDir).toBe('/tmp/service-config-check');
    expect(shown.duckdb).toEqual({ memoryLimitBytes: 1024 ** 3, copies: 8, copyMinRows: 1_000_000 });
    expect(shown.auth.bootstrapAdmin).toEqual({ email: 'root@example.org', password: '<redacted>' });
    expect(result.stdout).not.toContain('very-secret-password');
    expect(result.stdout).not.toContain('db-password');
    expect(result.stderr).toContain('unknown setting SERVICE_PROT');
  });

  it('stops with one line naming the variable and exit code 2', async () => {
    const result = await runCli(['config', 'check'], { SERVICE_PORT: 'abc' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: SERVICE_PORT: must be an integer from 0 to 65535 (got "abc")',
    ]);
  });

  it('refuses the placeholder secrets of the old compose file, in check and in serve', async () => {
    const env = {
      SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
      SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'change-this-admin-password',
    };
    for (const command of [['config', 'check'], ['serve']]) {
      const result = await runCli(command, env);
      expect(result.code, command.join(' ')).toBe(2);
      expect(result.stderr).toContain('SERVICE_BOOTSTRAP_ADMIN_PASSWORD: holds a placeholder value');
      expect(result.stderr).not.toContain('change-this-admin-password');
    }
  });

  it('makes serve refuse to start on a bad setting', async () => {
    const result = await runCli(['serve'], { SERVICE_AUTH_SINGLE_USER_MODE: 'true', SERVICE_AUTH_PUBLIC_MODE: 'true' });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('SERVICE_AUTH_SINGLE_USER_MODE');
  });
});

describeEachDialect('service migrate and user create', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('migrates from several processes at once without conflict', async () => {
    const env = { SERVICE_DATABASE_URL: database.url, SERVICE_DATA_DIR: database.dataDir };
    const results = await Promise.all([runCli(['migrate'], env), runCli(['migrate'], env), runCli(['migrate'], env)]);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const outputs = results.map((result) => result.stdout.trim()).sort();
    const all = Object.keys(await migrationProvider.getMigrations());
    expect(all[0]).toBe('0001_accounts');
    expect(outputs).toEqual([
      `Applied migrations: ${all.join(', ')}`,
      'Database schema is up to date.',
      'Database schema is up to date.',
    ]);
  });

  it('creates an admin who can sign in, and refuses a duplicate', async () => {
    const env = { SERVICE_DATABASE_URL: database.url, SERVICE_DATA_DIR: database.dataDir };
    const created = await runCli(
      ['user', 'create', 'Ops@Example.org', '--admin', '--password-stdin'],
      env,
      'operator-password\n',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created admin Ops@Example.org \(id [0-9a-f-]{36}\)\n$/);

    const duplicate = await runCli(
      ['user', 'create', 'ops@example.org', '--password-stdin'],
      env,
      'operator-password\n',
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toBe('service: an account with this email already exists\n');

    const generated = await runCli(['user', 'create', 'analyst@example.org'], env);
    expect(generated.code).toBe(0);
    const password = /Password: (\S+)/.exec(generated.stdout)?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(40);

    const server = await startTestServer(database);
    try {
      const session = await login(server, 'ops@example.org', 'operator-password');
      expect(session.user.role).toBe('admin');
      await login(server, 'analyst@example.org', password);
      await login(server, ADMIN.email, ADMIN.password);
    } finally {
      await server.stop();
    }
  });

  it('refuses a bad email or a short password', async () => {
    const env = { SERVICE_DATABASE_URL: database.url, SERVICE_DATA_DIR: database.dataDir };
    const badEmail = await runCli(
      ['user', 'create', 'not-an-email', '--password-stdin'],
      env,
      'long-enough-password\n',
    );
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain('email');
    const short = await runCli(['user', 'create', 'short@example.org', '--password-stdin'], env, 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('at least 12 characters');
  });
});

describeEachDialect('service user delete', (dialect) => {
  it('hands what the account owns alone to an admin, and a running server refuses its token at once', async () => {
    const database = await createTestDatabase(dialect);
    const env = { SERVICE_DATABASE_URL: database.url, SERVICE_DATA_DIR: database.dataDir };
    // The server trusts its session cache for ten minutes: only the CLI's notice can make it refuse.
    const server = await startTestServer(database, { SERVICE_AUTH_SESSION_CACHE_SECONDS: '600' });
    try {
      const admin = await login(server, ADMIN.email, ADMIN.password);
      const ada = await createUser(server, admin.access_token, 'ada@example.org');
      const project = await call<{ project_id: string }>(server, 'POST', '/projects', {
        token: ada.access_token,
        json: { name: 'Ada’s' },
      });
      expect((await call(server, 'GET', '/auth/me', { token: ada.access_token })).status).toBe(200);

      const undecided = await runCli(['user', 'delete', 'ada@example.org'], env);
      expect(undecided.code).toBe(1);
      expect(undecided.stderr).toContain('give --transfer-to ADMIN or --delete-owned');
      const dryRun = await runCli(['user', 'delete', 'ada@example.org', '--dry-run'], env);
      expect(dryRun.code, dryRun.stderr).toBe(0);
      expect(dryRun.stdout).toBe(
        'ada@example.org has 1 project and 0 dashboards it owns alone, 0 working embed tokens and 1 session. Nothing was changed.\n',
      );
      const notAdmin = await createUser(server, admin.access_token, 'bob@example.org');
      const refused = await runCli(['user', 'delete', 'ada@example.org', '--transfer-to', notAdmin.user.email], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('bob@example.org is not an active admin');
      const lastAdmin = await runCli(['user', 'delete', ADMIN.email, '--delete-owned'], env);
      expect(lastAdmin.code).toBe(1);
      expect(lastAdmin.stderr).toContain('last active admin');
      expect((await call(server, 'GET', '/auth/me', { token: ada.access_token })).status).toBe(200);

      const deleted = await runCli(['user', 'delete', ada.user.user_id, '--transfer-to', ADMIN.email], env);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout).toBe(
        `Deleted ada@example.org: 1 project and 0 dashboards it owns alone transferred to ${ADMIN.email}; 0 embed tokens revoked, 1 session ended.\n`,
      );
      expect((await call(server, 'GET', '/auth/me', { token: ada.access_token })).status).toBe(401);
      const moved = await call<{ permissions: { owners: { email: string }[] } }>(
        server,
        'GET',
        `/projects/${project.body.project_id}`,
        { token: admin.access_token },
      );
      expect(moved.body.permissions.owners.map((owner) => owner.email)).toEqual([ADMIN.email]);
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});

describe('service serve', () => {
  it('prints its URL, and on SIGTERM finishes the request in flight, then exits 0', async () => {
    const database = await createTestDatabase('sqlite');
    const server = await startCliServer({
      SERVICE_DATA_DIR: database.dataDir,
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'warn',
    });
    try {
      expect(server.stderr()).toMatch(/Service \S+ is running at http:\/\/127\.0\.0\.1:0/);
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);

      // A sign-in whose body is still on its way when the signal comes. `Expect: 100-continue` makes
      // the server say when it has the request in hand; the body follows once it stops accepting
      // new connections, i.e. is shutting down.
      const body = JSON.stringify({ email: 'late@example.org', password: 'in-flight-password' });
      let inHand: () => void = () => undefined;
      const accepted = new Promise<void>((resolve) => {
        inHand = resolve;
      });
      const req = request(`${server.url}/service/api/v1/auth/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      const pending = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
      });
      req.on('continue', () => inHand());
      req.flushHeaders();
      await accepted;
      server.child.kill('SIGTERM');
      await expect
        .poll(
          () =>
            fetch(`${server.url}/health`).then(
              () => 'answering',
              () => 'refused',
            ),
          {
            timeout: 10_000,
            interval: 20,
          },
        )
        .toBe('refused');
      req.end(body);

      const answer = await pending;
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text).code).toBe('invalid_credentials');
      expect(await exitOf(server.child)).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
      await database.drop();
    }
  });
});
