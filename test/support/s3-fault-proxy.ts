import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3FaultProxy {
  server: Server;
  /** The endpoint to give the service under test instead of the real one. */
  url: string;
  /** While on, the requests `refuses` picks get 503, as a failing S3 endpoint would answer. */
  fail(on: boolean): void;
}

/** A pass-through to the S3 service at `target` that can be told to refuse some requests. */
export function startS3FaultProxy(
  target: string,
  refuses: (request: IncomingMessage) => boolean,
): Promise<S3FaultProxy> {
  let failing = false;
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (failing && refuses(req)) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>ServiceUnavailable</Code></Error>');
      return;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        fail: (on) => {
          failing = on;
        },
      }),
    ),
  );
}
