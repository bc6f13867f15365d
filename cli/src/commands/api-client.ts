/** What `project import` and `dashboard export|import` share: where the server is, and its problems. */

export interface Problem {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** `file:line:column path: message`, the shape editors and CI logs link to. */
export function formatProblems(file: string, problems: Problem[]): string {
  return problems
    .map((problem) => {
      const at = problem.line === undefined ? file : `${file}:${problem.line}:${problem.column ?? 1}`;
      return `${at} ${problem.path ? `${problem.path}: ` : ''}${problem.message}`;
    })
    .join('\n');
}

export interface ServerOptions {
  server?: string;
  token?: string;
}

/** The server and token from the options, else from SERVICE_PUBLIC_URL and SERVICE_TOKEN. */
export function serverOf(options: ServerOptions): { server: string; token: string } {
  const server = (options.server ?? process.env.SERVICE_PUBLIC_URL ?? '').replace(/\/+$/, '');
  const token = options.token ?? process.env.SERVICE_TOKEN;
  if (server === '') throw new Error('give the server with --server or SERVICE_PUBLIC_URL');
  if (!token) throw new Error('give an access token with --token or SERVICE_TOKEN');
  return { server, token };
}
