import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { KNOWN_SETTINGS } from '../../src/config/settings.js';
import { CHART_DIR, ChartRenderer, type RenderedObject, renderChart } from './go-template.js';

interface Container {
  name: string;
  args: string[];
  image: string;
  env: { name: string; value: string }[];
  envFrom?: { secretRef: { name: string } }[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts: { name: string; mountPath: string }[];
  securityContext: Record<string, unknown>;
  livenessProbe?: { httpGet: { path: string; port: string } };
  readinessProbe?: { httpGet: { path: string; port: string } };
}
interface PodSpec {
  automountServiceAccountToken?: boolean;
  containers: Container[];
  volumes: { name: string; emptyDir?: unknown }[];
  securityContext: Record<string, unknown>;
}
type Labels = Record<string, string>;

const podTemplate = (object: RenderedObject) =>
  (object.spec as { template: { metadata: { labels: Labels }; spec: PodSpec } }).template;
const onlyContainer = (object: RenderedObject) => {
  const { containers } = podTemplate(object).spec;
  expect(containers).toHaveLength(1);
  return containers[0]!;
};
const find = (objects: RenderedObject[], kind: string, name: string) => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (found === undefined) {
    throw new Error(`no ${kind} ${name}; rendered: ${objects.map((o) => `${o.kind} ${o.metadata.name}`).join(', ')}`);
  }
  return found;
};
const selects = (selector: Labels, labels: Labels) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
const envOf = (container: Container) => new Map(container.env.map(({ name, value }) => [name, value]));

const backendEnv = {
  SERVICE_STORAGE_URL: 's3://analytics/prod',
  SERVICE_S3_ENDPOINT: 'https://s3.example.com',
  SERVICE_S3_FORCE_PATH_STYLE: 'true',
  SERVICE_AUTH_PUBLIC_MODE: 'true',
  SERVICE_AUTH_TEMP_USER_RATE_LIMIT: '20/minute',
  // Not strings: Helm holds numbers as floats; the chart must still hand over these digits.
  SERVICE_UPLOAD_MAX_BYTES: 1073741824,
  SERVICE_AUTH_TEMPORARY_USER_EXPIRY_HOURS: 0.5,
  SERVICE_INGESTION_USER_LOCATIONS: true,
};

describe('Helm chart deploy/helm/service, rendered from its values and templates', () => {
  const objects = renderChart('prod', {
    backend: { env: backendEnv, existingSecret: 'service-secrets' },
    ingress: { enabled: true, host: 'analytics.example.com', tlsSecretName: 'analytics-tls' },
  });
  const api = find(objects, 'Deployment', 'prod-service-api');
  const worker = find(objects, 'Deployment', 'prod-service-worker');
  const migrate = find(objects, 'Job', 'prod-service-migrate');
  const processes = [api, worker, migrate];

  it('gives every backend.env entry, as a string, to the API and worker Deployments and the migration Job', () => {
    for (const object of processes) {
      const env = envOf(onlyContainer(object));
      for (const [name, value] of Object.entries(backendEnv))
        expect(env.get(name), `${object.kind} ${name}`).toBe(String(value));
    }
  });

  it('gives the existing Secret to every process with envFrom', () => {
    for (const object of processes) {
      expect(onlyContainer(object).envFrom).toEqual([{ secretRef: { name: 'service-secrets' } }]);
    }
    const withoutSecret = renderChart('prod');
    for (const object of withoutSecret.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
      expect(onlyContainer(object).envFrom).toBeUndefined();
    }
  });

  it('sets only SERVICE_* variables the configuration knows, each once', () => {
    for (const object of processes) {
      const names = onlyContainer(object).env.map(({ name }) => name);
      expect(new Set(names).size, `${object.kind} has a variable twice`).toBe(names.length);
      for (const name of names) expect(KNOWN_SETTINGS.has(name), name).toBe(true);
    }
    const defaults = parseYaml(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as {
      backend: { env: Record<string, string> };
    };
    for (const name of Object.keys(defaults.backend.env)) expect(KNOWN_SETTINGS.has(name), name).toBe(true);
  });

  it('runs serve (API-only, listening on the pod), worker and migrate from one image', () => {
    expect(onlyContainer(api).args).toEqual(['serve']);
    expect(onlyContainer(worker).args).toEqual(['worker', '--concurrency', '2']);
    expect(onlyContainer(migrate).args).toEqual(['migrate']);
    expect(new Set(processes.map((object) => onlyContainer(object).image))).toEqual(new Set(['service:0.1.0']));
    const apiEnv = envOf(onlyContainer(api));
    expect(apiEnv.get('SERVICE_JOBS_WORKERS')).toBe('0');
    expect(apiEnv.get('SERVICE_HOST')).toBe('0.0.0.0');
    expect(onlyContainer(api).ports).toEqual([{ name: 'http', containerPort: Number(apiEnv.get('SERVICE_PORT')) }]);
  });

  it('sizes the Deployments from api.replicas and worker.replicas', () => {
    const sized = renderChart('prod', { api: { replicas: 5 }, worker: { replicas: 7 } });
    expect(find(sized, 'Deployment', 'prod-service-api').spec.replicas).toBe(5);
    expect(find(sized, 'Deployment', 'prod-service-worker').spec.replicas).toBe(7);
  });

  it('names every object from the release and connects them by matching names and labels', () => {
    for (const object of objects) expect(object.metadata.name).toMatch(/^prod-service(-[a-z]+)?$/);
    const names = objects.map((object) => `${object.kind}/${object.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
    for (const deployment of [api, worker]) {
      const selector = (deployment.spec as { selector: { matchLabels: Labels } }).selector.matchLabels;
      expect(selects(selector, podTemplate(deployment).metadata.labels)).toBe(true);
    }
    const service = find(objects, 'Service', 'prod-service');
    const serviceSelector = service.spec.selector as Labels;
    expect(selects(serviceSelector, podTemplate(api).metadata.labels)).toBe(true);
    expect(selects(serviceSelector, podTemplate(worker).metadata.labels)).toBe(false);
    expect(selects(serviceSelector, podTemplate(migrate).metadata.labels)).toBe(false);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);

    const ingress = find(objects, 'Ingress', 'prod-service');
    const rule = (ingress.spec as { rules: { host: string; http: { paths: { backend: unknown }[] } }[] }).rules[0]!;
    expect(rule.host).toBe('analytics.example.com');
    expect(rule.http.paths[0]!.backend).toEqual({ service: { name: 'prod-service', port: { name: 'http' } } });

    for (const [name, deployment] of [
      ['prod-service-api', api],
      ['prod-service-worker', worker],
    ] as const) {
      const budget = find(objects, 'PodDisruptionBudget', name);
      const selector = (budget.spec as { selector: { matchLabels: Labels } }).selector.matchLabels;
      expect(selects(selector, podTemplate(deployment).metadata.labels)).toBe(true);
    }
    expect(renderChart('prod').some((object) => object.kind === 'Ingress')).toBe(false);
    expect(renderChart('x', { fullnameOverride: 'analytics' }).map((o) => o.metadata.name)).toContain('analytics-api');
  });

  it('probes the API on /health: liveness on the process, readiness on its dependencies and drain', () => {
    const container = onlyContainer(api);
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
  });

  it('migrates in a pre-install/pre-upgrade hook Job, and only there while the Job is on', () => {
    expect(migrate.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(podTemplate(migrate).spec).toMatchObject({ restartPolicy: 'Never' });
    for (const object of [api, worker]) {
      expect(envOf(onlyContainer(object)).get('SERVICE_DATABASE_AUTO_MIGRATE'), object.kind).toBe('false');
    }
    const withoutJob = renderChart('prod', { migrations: { enabled: false } });
    expect(withoutJob.some((o) => o.kind === 'Job')).toBe(false);
    for (const object of withoutJob.filter((o) => o.kind === 'Deployment')) {
      expect(envOf(onlyContainer(object)).has('SERVICE_DATABASE_AUTO_MIGRATE')).toBe(false);
    }
  });

  it('drains an API replica: unready at once on SIGTERM, serving a while longer, within the grace period', () => {
    const delay = Number(envOf(onlyContainer(api)).get('SERVICE_SHUTDOWN_DELAY_SECONDS'));
    const spec = podTemplate(api).spec as PodSpec & { terminationGracePeriodSeconds: number };
    expect(delay).toBeGreaterThan(0);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(delay);
    // Running data work is interrupted at the shutdown timeout, before the kubelet's SIGKILL.
    const timeout = Number(envOf(onlyContainer(api)).get('SERVICE_SHUTDOWN_TIMEOUT_SECONDS'));
    expect(timeout).toBeGreaterThan(0);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThan(delay + timeout);
  });

  it('runs non-root on a read-only root filesystem, with emptyDirs for the data directory (DuckDB spill, cache) and /tmp', () => {
    for (const object of processes) {
      const pod = podTemplate(object).spec;
      const container = onlyContainer(object);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(pod).toMatchObject({ automountServiceAccountToken: false });
      expect(container.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      const dataDir = envOf(container).get('SERVICE_DATA_DIR');
      const mounts = new Map(container.volumeMounts.map(({ name, mountPath }) => [mountPath, name]));
      for (const path of [dataDir, '/tmp']) {
        const volume = pod.volumes.find(({ name }) => name === mounts.get(path!));
        expect(volume?.emptyDir, `${object.kind} ${path}`).toBeDefined();
      }
    }
  });
});

describe('the chart renderer', () => {
  it('refuses template constructs it does not implement instead of rendering them differently', () => {
    const renderer = new ChartRenderer([]);
    expect(() => renderer.render('{{ with .Values }}x{{ end }}', { Values: {} })).toThrow(/not supported/);
    expect(() => renderer.render('{{ .Values.x | upper }}', { Values: { x: 'a' } })).toThrow(/not supported/);
    expect(() => renderer.render('{{ .Values.missing }}', { Values: {} })).toThrow(/no field/);
  });

  it('trims whitespace around {{- and -}} and ranges over maps in key order, as Go does', () => {
    const renderer = new ChartRenderer(['{{- define "pair" -}}{{ .a }}={{ .b | quote }}{{- end -}}']);
    expect(
      renderer.render('x:\n  {{- range $k, $v := .m }}\n  {{ $k }}: {{ $v }}\n{{- end }}', { m: { b: 2, a: 1 } }),
    ).toBe('x:\n  a: 1\n  b: 2');
    expect(renderer.render('[{{ include "pair" . }}]', { a: 'k', b: 3 })).toBe('[k="3"]');
    expect(renderer.render('{{ printf "%s-%s" .a .b | trunc 5 | trimSuffix "-" }}', { a: 'abcd', b: 'e' })).toBe(
      'abcd',
    );
    expect(renderer.render('{{ .n }} {{ .m }} {{ .n | quote }} {{ .n | toJson }}', { n: 1073741824, m: 8058 })).toBe(
      '1.073741824e+09 8058 "1.073741824e+09" 1073741824',
    );
  });
});
