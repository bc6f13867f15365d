/**
 * Where this process is in its shutdown. On SIGTERM it first drains: `/health` answers not ready,
 * so load balancers stop sending, while requests are still served (SERVICE_SHUTDOWN_DELAY_SECONDS).
 * Then it closes: the listener stops, requests in flight finish, and any request still arriving on
 * an open connection is refused with a 503 and `Retry-After` that a client can safely retry.
 */
export class Lifecycle {
  draining = false;
  closing = false;
}
