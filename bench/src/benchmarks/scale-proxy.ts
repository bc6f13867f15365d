/**
 * Child process of the `scale` benchmark: `scale-proxy.js <upstream URL>...` forwards every HTTP
 * request to the next upstream in turn (round-robin, as deploy/nginx.conf does) over kept-alive
 * connections. It runs in its own process so that it takes no CPU from the load generator, and it
 * stands in front of one replica too, so that both figures pay for the same hop. Reports
 * `{ type: 'ready', url }` over IPC and closes when the parent disconnects.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TargetMessage } from '../lib/child-target.js';

const upstreams = process.argv.slice(2).map((url) => new URL(url));
if (upstreams.length === 0) {
  process.stderr.write('usage: scale-proxy.js <upstream URL>...\n');
  process.exit(2);
}
// As nginx's `keepalive 64`: up to 64 idle upstream connections kept for reuse, and no cap on
// those in use, so long-lived requests (the `live` benchmark's event streams) never queue.
const agent = new Agent({ keepAlive: true, maxFreeSockets: 64 });
let next = 0;

const server = createServer((incoming, outgoing) => {
  const upstream = upstreams[next]!;
  next = (next + 1) % upstreams.length;
  const forwarded = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers: { ...incoming.headers, 'x-forwarded-for': incoming.socket.remoteAddress ?? '' },
      agent,
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', () => {
    if (!outgoing.headersSent) outgoing.writeHead(502);
    outgoing.end();
  });
  incoming.pipe(forwarded);
});
server.keepAliveTimeout = 30_000;

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` } satisfies TargetMessage);
});
process.once('disconnect', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
});
