/**
 * The http.Server every listener of the companion is (its port, its socket,
 * the workspace sockets, Copilot CLI's socket), and how one is closed.
 */
import * as http from 'node:http';

/** `handler` served with a bound on each request; a malformed request drops its connection. */
export function mcpServer(handler: http.RequestListener): http.Server {
  const server = http.createServer({ requestTimeout: 120_000 }, handler);
  server.on('clientError', (_err, socket) => socket.destroy());
  return server;
}

/** Stops listening and ends open connections (a GET stream never ends by itself); settles once closed. */
export function closeServer(server: http.Server | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server?.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
