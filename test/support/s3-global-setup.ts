import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import type { TestProject } from 'vitest/node';
import { handleMissingService } from './missing-service.js';
import './s3-context.js';

const ENV_ENDPOINT = 'SERVICE_TEST_S3_ENDPOINT';
/** What scripts/s3-swift.sh starts (Swift's tempauth test user); S3_SWIFT_PORT moves both. */
const SWIFT_ENDPOINT = `http://127.0.0.1:${process.env.S3_SWIFT_PORT || '8089'}`;
const SWIFT_CREDENTIALS = { accessKeyId: 'test:tester', secretAccessKey: 'testing' };
const SCRIPT = fileURLToPath(new URL('../../scripts/s3-swift.sh', import.meta.url));
/** The first start installs Debian packages. */
const SCRIPT_TIMEOUT_MS = 5 * 60_000;

/**
 * Provides `s3Endpoint` to tests: the service named by SERVICE_TEST_S3_ENDPOINT (which must work),
 * else a Swift already answering on 127.0.0.1:8089 (S3_SWIFT_PORT), else one started by scripts/s3-swift.sh
 * (and left running), else '' so that S3 suites skip (on CI: the run fails instead).
 */
export default async function setup(project: TestProject): Promise<void> {
  const envEndpoint = process.env[ENV_ENDPOINT];
  if (envEndpoint) {
    const credentials = {
      accessKeyId: process.env.SERVICE_TEST_S3_ACCESS_KEY_ID || SWIFT_CREDENTIALS.accessKeyId,
      secretAccessKey: process.env.SERVICE_TEST_S3_SECRET_ACCESS_KEY || SWIFT_CREDENTIALS.secretAccessKey,
    };
    const problem = await checkEndpoint(envEndpoint, credentials);
    if (problem) {
      const error = new Error(`[s3] ${ENV_ENDPOINT}=${envEndpoint} is not usable: ${problem}`);
      error.stack = error.message;
      throw error;
    }
    project.provide('s3Endpoint', envEndpoint);
    project.provide('s3Credentials', credentials);
    return;
  }

  project.provide('s3Credentials', SWIFT_CREDENTIALS);
  try {
    if (!(await answers(`${SWIFT_ENDPOINT}/healthcheck`))) {
      const started = Date.now();
      await runScript('start');
      // Left running: concurrent and later test runs share it (stopping it here would pull it away
      // from a run that found it answering). Stop it with `scripts/s3-swift.sh stop`.
      process.stderr.write(
        `[s3] started Swift at ${SWIFT_ENDPOINT} in ${((Date.now() - started) / 1000).toFixed(1)} s; it stays up for later runs (scripts/s3-swift.sh stop)\n`,
      );
    }
    const problem = await checkEndpoint(SWIFT_ENDPOINT, SWIFT_CREDENTIALS);
    if (problem) throw new Error(`${SWIFT_ENDPOINT} answers but S3 requests fail: ${problem}`);
    project.provide('s3Endpoint', SWIFT_ENDPOINT);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
    handleMissingService('s3', 'S3 suites', reason);
    project.provide('s3Endpoint', '');
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function runScript(command: 'start'): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(SCRIPT, [command], { timeout: SCRIPT_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const lastLines = stderr.trim().split('\n').slice(-3).join(' | ');
      reject(new Error(`scripts/s3-swift.sh ${command} failed: ${lastLines || error.message}`));
    });
  });
}

/** Returns why the endpoint cannot serve the tests, if it cannot (one quick, unretried request). */
async function checkEndpoint(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<string | undefined> {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 3_000, socketTimeout: 10_000 },
  });
  try {
    await client.send(new ListBucketsCommand({}));
    return undefined;
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    return `${name}${code ? ` ${code}` : ''}: ${message || 'no message'}`;
  } finally {
    client.destroy();
  }
}
