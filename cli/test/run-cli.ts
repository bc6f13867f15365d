import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** `service worker` plus the `jobs` benchmark's own `queue.probe` kind, for the queue's fault tests. */
export const PROBE_WORKER = fileURLToPath(new URL('../../bench/dist/probe/worker.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for the CLI: only what the test gives, plus PATH, so the machine's SERVICE_* settings never leak in. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ...env };
}

const RECORD_LOADED_MODULES = fileURLToPath(new URL('./support/record-loaded-modules.mjs', import.meta.url));

export function runCli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  return runNode([CLI, ...args], env, stdin);
}

/** `runCli`, writing the URL of every module the CLI loads to `listing`, one per line. */
export function runCliRecordingModules(args: string[], listing: string): Promise<CliResult> {
  return runNode(['--import', RECORD_LOADED_MODULES, CLI, ...args], { SERVICE_TEST_LOADED_MODULES: listing });
}

function runNode(nodeArgs: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, { env: cliEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

/** Starts `service serve` and waits for the line that gives its address. */
export function startCliServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve'], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/[^;\s]+)/.exec(stderr);
      if (match?.[1]) resolve({ child, url: match[1], stderr: () => stderr });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`service serve exited with ${code} before listening: ${stderr}`)));
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });
}
