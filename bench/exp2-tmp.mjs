import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const kind = process.send ? process.argv[2] : undefined;
if (kind) {
  const port = Number(process.argv[3]);
  if (kind === 'hello') {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/service/api/v1/utils/capabilities', async () => ({ hello: 'world' }));
    await app.listen({ port, host: '127.0.0.1' });
  } else if (kind.startsWith('opts')) {
    const { default: Fastify, LogController } = await import('fastify');
    const caps = JSON.stringify({
      version: '0.1.0',
      auth_mode: 'auth',
      features: ['jobs', 'deltatables.async_upsert'],
      auth: {
        registration: true,
        password_login: true,
        oauth: false,
        temporary_users: false,
        access_code_required: false,
        temporary_user_expiry_hours: null,
      },
    });
    const without = kind.split(':-').slice(1);
    const full = true;
    const has = (x) => !without.includes(x);
    const app = Fastify({
      ...(has('logger')
        ? {
            logger: { level: 'silent', redact: { paths: ['req.headers.authorization'], remove: true } },
            childLoggerFactory: (l) => l,
          }
        : {}),
      ...(has('log') ? { logController: new LogController({ disableRequestLogging: true }) } : {}),
      ...(has('router') ? { routerOptions: { ignoreTrailingSlash: true } } : {}),
    });
    if (has('hook'))
      app.addHook('onRequest', (req, reply, done) => {
        reply.header('x-request-id', req.id);
        done();
      });
    app.get(
      '/service/api/v1/utils/capabilities',
      { serializerCompiler: () => () => caps, schema: { response: { 200: { type: 'object' } } } },
      async () => ({}),
    );
    await app.listen({ port, host: '127.0.0.1' });
  } else {
    const { loadConfig, startServer } = await import('@service/server');
    const dir = mkdtempSync('/tmp/exp2-');
    const env = { SERVICE_DATA_DIR: dir, SERVICE_PORT: String(port), SERVICE_LOG_LEVEL: 'silent' };
    if (kind === 'nojobs') env.SERVICE_JOBS_ENABLED = 'false';
    if (kind === 'admin' || kind === 'login')
      Object.assign(env, {
        SERVICE_BOOTSTRAP_ADMIN_EMAIL: 'bench@example.org',
        SERVICE_BOOTSTRAP_ADMIN_PASSWORD: 'bench-password-123',
      });
    await startServer(loadConfig(env, dir), { webRoot: null });
    if (kind === 'login')
      await fetch(`http://127.0.0.1:${port}/service/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.org', password: 'bench-password-123' }),
      });
  }
  process.send('ready');
} else {
  const kinds = process.argv.slice(2).length ? process.argv.slice(2) : ['hello', 'service', 'nojobs'];
  const kids = kinds.map((k, i) => fork(new URL(import.meta.url).pathname, [k, String(4200 + i)]));
  await Promise.all(kids.map((c) => new Promise((r) => c.once('message', r))));
  const cpu = (pid) => {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(s[11]) + Number(s[12])) / 100;
  };
  const res = Object.fromEntries(kinds.map((k) => [k, []]));
  for (let round = 0; round < Number(process.env.ROUNDS ?? 4); round++)
    for (const [i, k] of kinds.entries()) {
      const c0 = cpu(kids[i].pid);
      const r = await autocannon({
        url: `http://127.0.0.1:${4200 + i}/service/api/v1/utils/capabilities`,
        connections: 10,
        duration: 3,
      });
      const c1 = cpu(kids[i].pid);
      res[k].push([r.requests.mean, ((c1 - c0) * 1e6) / r.requests.total]);
    }
  for (const k of kinds) {
    const us = res[k]
      .slice(1)
      .map((x) => x[1])
      .sort((a, b) => a - b);
    console.log(
      k.padEnd(16),
      'min',
      us[0].toFixed(1),
      'median',
      us[Math.floor(us.length / 2)].toFixed(1),
      res[k].map(([rps, u]) => `${rps.toFixed(0)}/${u.toFixed(0)}`).join(' '),
    );
  }
  kids.forEach((c) => c.kill());
}
