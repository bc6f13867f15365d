/**
 * `npm run bench -- login-timing [tries]`: does a sign-in with an unknown email take as long as one
 * with a known email and a wrong password? Both must spend one argon2 verification, so that timing
 * does not tell which emails have accounts. The test suite checks that the work is done
 * (server/test/auth/sessions.test.ts, through /metrics); this measures what it costs, which a
 * loaded machine would make a flaky test.
 *
 * Known and unknown emails alternate, and each side's fastest try is compared: load only ever adds
 * time, so the minimum is the steadiest estimate of the work. Target: a ratio within 0.5–2.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printMachine } from '../lib/report.js';
import { median } from '../lib/stats.js';
import { UsageError } from '../lib/usage-error.js';
import { BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD, serviceEnvironment } from './api-fixture.js';

const API = '/service/api/v1';

export async function run(args: string[]): Promise<void> {
  const tries = args[0] === undefined ? 15 : Number(args[0]);
  if (!Number.isInteger(tries) || tries < 1)
    throw new UsageError(`tries must be a positive integer (got "${args[0]}")`);
  const out = (line = '') => process.stdout.write(`${line}\n`);
  await printMachine(out);

  const dataDir = await mkdtemp(join(tmpdir(), 'bench-login-'));
  const { loadConfig, startServer } = await import('@service/server');
  // The sign-in rate limit (per address and email) would answer 429 without verifying anything.
  const env = { ...serviceEnvironment(dataDir), SERVICE_TRUST_PROXY: '127.0.0.1' };
  const server = await startServer(loadConfig(env, dataDir), { webRoot: null });
  try {
    const signIn = async (email: string, password: string, client: number) => {
      const started = performance.now();
      const response = await fetch(`${server.url}${API}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.0.${client >> 8}.${client & 255}` },
        body: JSON.stringify({ email, password }),
      });
      const elapsed = performance.now() - started;
      await response.arrayBuffer();
      return { status: response.status, elapsed };
    };
    const admin = await signIn(BENCH_ADMIN_EMAIL, BENCH_ADMIN_PASSWORD, 0);
    if (admin.status !== 200) throw new Error(`the bench admin cannot sign in (${admin.status})`);
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < tries; i++) {
      for (const [email, times] of [
        [BENCH_ADMIN_EMAIL, known],
        [`ghost-${i}@example.org`, unknown],
      ] as const) {
        const answer = await signIn(email, 'wrong-password-123', i + 1);
        if (answer.status !== 401) throw new Error(`a wrong sign-in answered ${answer.status}, not 401`);
        times.push(answer.elapsed);
      }
    }
    const ratio = Math.min(...unknown) / Math.min(...known);
    out(`tries: ${tries} each, alternating`);
    out(`known email, wrong password: min ${Math.min(...known).toFixed(1)} ms, median ${median(known).toFixed(1)} ms`);
    out(
      `unknown email:               min ${Math.min(...unknown).toFixed(1)} ms, median ${median(unknown).toFixed(1)} ms`,
    );
    out(`ratio unknown/known (min): ${ratio.toFixed(2)}  target 0.5–2: ${ratio > 0.5 && ratio < 2 ? 'met' : 'MISSED'}`);
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
