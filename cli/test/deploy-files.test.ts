import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../server/src/config/config.js';
import { KNOWN_SETTINGS } from '../../server/src/config/settings.js';
import { renderChart } from '../../server/test/helm-chart/go-template.js';
import { migrateCommand } from '../src/commands/migrate.js';
import { serveCommand } from '../src/commands/serve.js';
import { workerCommand } from '../src/commands/worker.js';

/*
 * No container engine runs here, so the image and the compose file are checked for consistency with
 * the code instead: every command they run is a real subcommand with real options, every variable is
 * a SERVICE_* setting the configuration accepts with that value, and ports and names line up.
 */

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const commands = new Map<string, Command>(
  [serveCommand(), workerCommand(), migrateCommand()].map((command) => [command.name(), command]),
);
const defaultPort = loadConfig({}, '/tmp').port;

/** The command line is a subcommand of `service` and only options that subcommand has. */
function expectRealCommand(args: string[]): void {
  const [name, ...rest] = args;
  const command = commands.get(name!);
  expect(command, `service ${args.join(' ')}`).toBeDefined();
  const options = new Set(command!.options.flatMap((option) => [option.long, option.short]));
  for (const word of rest.filter((arg) => arg.startsWith('-'))) expect(options.has(word), word).toBe(true);
}

/** What an operator puts in deploy/.env: secrets of their own. */
const OWN_ENV: Record<string, string> = {
  POSTGRES_PASSWORD: 'a-db-password-of-our-own',
  S3_SECRET_KEY: 'an-s3-secret-of-our-own',
  SERVICE_INTERNAL_KEY: 'an-internal-key-of-our-own-of-40-characters',
  SERVICE_ADMIN_EMAIL: 'ops@example.org',
  SERVICE_ADMIN_PASSWORD: 'an admin password of our own',
};

/**
 * Compose's interpolation: `${NAME:-default}` takes the default when NAME is unset, `${NAME:?message}`
 * stops `docker compose` with the message, `$$` is `$`.
 */
function interpolate(value: string, env: Record<string, string> = OWN_ENV): string {
  return value
    .replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
      const set = env[name];
      if (set !== undefined && set !== '') return set;
      if (kind === '?') throw new Error(`${name}: ${rest}`);
      return rest ?? '';
    })
    .replace(/\$\$/g, '$');
}

/** The settings a process gets must be known and must pass the configuration's own checks. */
function expectValidSettings(environment: Record<string, string>, where: string): void {
  for (const name of Object.keys(environment)) expect(KNOWN_SETTINGS.has(name), `${where}: ${name}`).toBe(true);
  expect(() => loadConfig(environment, '/tmp'), where).not.toThrow();
}

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lines = dockerfile.split('\n');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;
  const instruction = (stage: string, name: string) =>
    stage
      .split('\n')
      .filter((line) => line.startsWith(`${name} `))
      .map((line) => line.slice(name.length + 1));

  it('builds on Node 20 slim in two stages, compiling native modules only in the first', () => {
    expect(lines.filter((line) => line.startsWith('FROM ')).map((line) => line.split(' ')[1])).toEqual([
      'node:20-slim',
      'node:20-slim',
    ]);
    expect(stages[0]).toMatch(/apt-get install[^\n]*python3 make g\+\+/);
    expect(stages[0]).toContain('npm ci');
    expect(stages[0]).toContain('npm run build');
    expect(runtime).not.toMatch(/g\+\+|npm ci/);
  });

  it('runs `service serve` as a non-root user, with the built web app inside', () => {
    expect(instruction(runtime, 'ENTRYPOINT')).toEqual(['["service"]']);
    const cmd = JSON.parse(instruction(runtime, 'CMD')[0]!) as string[];
    expectRealCommand(cmd);
    expect(cmd).toEqual(['serve']);
    const bin = (JSON.parse(read('cli/package.json')) as { bin: { service: string } }).bin.service;
    expect(runtime).toContain(`ln -s /app/cli/${bin.replace(/^\.\//, '')} /usr/local/bin/service`);
    expect(stages[0]).toContain('web/dist');
    const user = instruction(runtime, 'USER')[0]!;
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });

  it('sets real settings, exposes the default port and keeps the data directory in a volume', () => {
    const env = Object.fromEntries(
      [...runtime.matchAll(/(SERVICE_\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!] as const),
    );
    expectValidSettings(env, 'Dockerfile ENV');
    expect(Number(env.SERVICE_PORT)).toBe(defaultPort);
    expect(instruction(runtime, 'EXPOSE')).toEqual([String(defaultPort)]);
    expect(instruction(runtime, 'VOLUME')).toEqual([env.SERVICE_DATA_DIR]);
  });

  it('leaves what the build makes itself out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['**/node_modules', '**/dist', 'data', '.git']) expect(ignored).toContain(entry);
  });
});

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  restart?: string;
}

describe('deploy/compose.yaml', () => {
  const compose = parseYaml(read('deploy/compose.yaml'), { merge: true }) as {
    services: Record<string, ComposeService>;
    networks: { default: { ipam: { config: { subnet: string }[] } } };
  };
  const services = compose.services;
  const backends = Object.entries(services).filter(([, service]) => service.image?.includes('SERVICE_IMAGE'));
  const named = (role: string) => backends.filter(([, service]) => service.command?.[0] === role);
  const nginx = read('deploy/nginx.conf');

  it('runs real subcommands with settings the configuration accepts', () => {
    expect(backends.length).toBeGreaterThanOrEqual(4);
    for (const [name, service] of backends) {
      expectRealCommand(service.command!);
      const environment = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
      );
      expectValidSettings(environment, name);
      const config = loadConfig(environment, '/tmp');
      expect(config.database.kind, name).toBe('postgres');
      expect(config.storage.kind, name).toBe('s3');
    }
  });

  it('has PostgreSQL, an S3 store, one migration one-shot that everything else waits for, 2 API replicas and 2 workers', () => {
    expect(services.postgres?.image).toMatch(/^postgres:/);
    expect(services.minio?.image).toMatch(/^minio\/minio/);
    const [migrate, ...moreMigrations] = named('migrate');
    expect(moreMigrations).toEqual([]);
    expect(migrate![1].restart).toBe('no');
    const apis = named('serve');
    const workers = named('worker');
    expect(apis).toHaveLength(2);
    expect(workers.reduce((sum, [, service]) => sum + (service.deploy?.replicas ?? 1), 0)).toBe(2);
    for (const [name, service] of [...apis, ...workers]) {
      expect(service.depends_on?.[migrate![0]], name).toEqual({ condition: 'service_completed_successfully' });
    }
    for (const [name, service] of apis) expect(service.environment?.SERVICE_JOBS_WORKERS, name).toBe('0');
    for (const [name, service] of [...apis, ...workers]) {
      expect(service.environment?.SERVICE_DATABASE_AUTO_MIGRATE, name).toBe('false');
    }
  });

  it('puts the proxy in front of both API replicas on the port they listen on', () => {
    const upstreams = [...nginx.matchAll(/^\s*server ([\w-]+):(\d+)/gm)].map((match) => [match[1], Number(match[2])]);
    const apis = named('serve').map(([name, service]) => [
      name,
      Number(service.environment?.SERVICE_PORT ?? defaultPort),
    ]);
    expect(upstreams).toEqual(apis);
    const listen = Number(/listen (\d+);/.exec(nginx)?.[1]);
    expect(services.proxy?.ports?.map((port) => interpolate(port))).toEqual([`127.0.0.1:${listen}:${listen}`]);
    expect(services.proxy?.volumes).toContain('./nginx.conf:/etc/nginx/nginx.conf:ro');
    const publicUrl = new URL(interpolate(named('serve')[0]![1].environment!.SERVICE_PUBLIC_URL!));
    expect(Number(publicUrl.port)).toBe(listen);
  });

  it('refuses to start without secrets of our own: no defaults, and placeholders refused by the service', () => {
    const text = read('deploy/compose.yaml');
    for (const name of Object.keys(OWN_ENV)) {
      expect(text, name).not.toMatch(new RegExp(`\\$\\{${name}:-`));
      const missing = Object.fromEntries(Object.entries(OWN_ENV).filter(([key]) => key !== name));
      const values = backends.flatMap(([, service]) => Object.values(service.environment ?? {}).map(String));
      expect(() => values.map((value) => interpolate(value, missing)), name).toThrow(name);
    }
    const placeholders = {
      ...OWN_ENV,
      SERVICE_INTERNAL_KEY: 'change-this-internal-key-of-32-characters-or-more',
      SERVICE_ADMIN_PASSWORD: 'change-this-admin-password',
    };
    const [, api] = named('serve')[0]!;
    const environment = Object.fromEntries(
      Object.entries(api.environment ?? {}).map(([key, value]) => [key, interpolate(String(value), placeholders)]),
    );
    expect(() => loadConfig(environment, '/tmp')).toThrow(/SERVICE_AUTH_INTERNAL_API_KEY_ENV: holds a placeholder/);
  });

  it('publishes only the proxy, on 127.0.0.1 unless PUBLISH_ADDRESS says otherwise', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name !== 'proxy') expect(service.ports, name).toBeUndefined();
    }
    const [port] = services.proxy!.ports!;
    expect(interpolate(port!)).toMatch(/^127\.0\.0\.1:/);
    expect(interpolate(port!, { ...OWN_ENV, PUBLISH_ADDRESS: '0.0.0.0' })).toMatch(/^0\.0\.0\.0:/);
  });

  it('pins every image to a release, never a moving tag', () => {
    for (const [name, service] of Object.entries(services)) {
      const image = interpolate(service.image!);
      if (image === 'service:local') continue;
      const tag = image.split(':')[1] ?? '';
      expect(tag, `${name}: ${image}`).toMatch(/^(\d+\.\d+(\.\d+)?(-alpine)?|RELEASE\.\d{4}-\d\d-\d\dT[\d-]+Z)$/);
    }
  });

  it("believes X-Forwarded-For only from the proxy's own address, which sets it from the peer", () => {
    // Appending ($proxy_add_x_forwarded_for) would pass on whatever address the client claims.
    expect(nginx).toMatch(/proxy_set_header X-Forwarded-For \$remote_addr;/);
    expect(nginx).not.toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for/);
    const proxy = services.proxy as ComposeService & { networks: { default: { ipv4_address: string } } };
    const proxyAddress = proxy.networks.default.ipv4_address;
    for (const [name, service] of backends) {
      const environment = Object.fromEntries(
        Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
      );
      // Exactly the proxy: not a range that every other container on the network (or a client of it) is in.
      expect(loadConfig(environment, '/tmp').trustProxy, name).toEqual([proxyAddress]);
    }
    const [subnet] = compose.networks.default.ipam.config.map((entry) => entry.subnet);
    expect(proxyAddress.startsWith(subnet!.split('/')[0]!.replace(/\.0$/, '.'))).toBe(true);
  });

  it("checks the API replicas' health where the Helm chart's readiness probe does", () => {
    const readiness = renderChart('x').find((object) => object.metadata.name === 'x-service-api')!;
    const container = (
      readiness.spec as { template: { spec: { containers: { readinessProbe: { httpGet: { path: string } } }[] } } }
    ).template.spec.containers[0]!;
    for (const [name, service] of named('serve')) {
      expect(service.healthcheck?.test.join(' '), name).toContain(
        `http://127.0.0.1:${defaultPort}${container.readinessProbe.httpGet.path}`,
      );
    }
  });
});

describe('Helm chart commands', () => {
  it('are real subcommands', () => {
    for (const object of renderChart('x').filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
      const pod = (object.spec as { template: { spec: { containers: { args: string[] }[] } } }).template.spec;
      expectRealCommand(pod.containers[0]!.args);
    }
  });
});
