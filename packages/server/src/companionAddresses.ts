/**
 * Where a companion answers, one handler on each: its port on 127.0.0.1, its
 * private Unix socket beside it (the relay's way in, docs/remote.md) and the
 * stable per-user address, a socket per workspace folder (workspaceSockets.ts).
 * Only the Host each accepts and the tokens differ. A socket that cannot be
 * made costs the remote flows only: said in the log, the port serves as before.
 */
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Duplex } from 'node:stream';
import { LOOPBACK_HOST } from '@ide-companion/protocol';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import { CompanionSocket, ensureSocketBaseDir, SOCKET_HOST, sweepStaleSocketDirs } from './companionSocket.js';
import { createMcpHttpHandler } from './http/mcpHttpHandler.js';
import { closeServer, mcpServer } from './http/mcpServer.js';
import { loopbackHostRule, socketHostRule } from './http/requestGuard.js';
import { describeError, type Logger } from './logger.js';
import type { SessionRegistry } from './sessions.js';
import { stableSocketDir, WorkspaceSockets } from './workspaceSockets.js';

type Token = readonly [token: string, agent: AgentName];

export interface CompanionAddressesOptions {
  sessions: SessionRegistry;
  logger: Logger;
  maxBodyBytes: number;
  /** The tokens the port takes, each naming its agent. */
  portTokens: readonly Token[];
  /** The one token the sockets take: the relay carries the core agent alone (docs/remote.md). */
  socketToken: Token;
  /** Whether to listen on Unix sockets at all (not on Windows, not when turned off). */
  unixSockets: boolean;
  /** The end's tmpdir, undefined when it gave none: the workspace sockets then go under XDG_RUNTIME_DIR when there is one. */
  tmpdir: string | undefined;
  idePid: number;
}

export class CompanionAddresses {
  private readonly httpServer: http.Server;
  /** The same handler on the Unix socket; undefined where there is none. */
  private readonly socketServer: http.Server | undefined;
  private socket: CompanionSocket | undefined;
  /** The stable per-user address's sockets for our folders; undefined where there is no socket. */
  private readonly workspaceSockets: WorkspaceSockets | undefined;

  constructor(private readonly options: CompanionAddressesOptions) {
    const { sessions, logger, maxBodyBytes } = options;
    this.httpServer = mcpServer(createMcpHttpHandler({ sessions, logger, maxBodyBytes, tokens: options.portTokens, hosts: loopbackHostRule(() => this.port) }));
    if (!options.unixSockets) return;
    const socketHandler = createMcpHttpHandler({
      sessions,
      logger,
      maxBodyBytes,
      tokens: [options.socketToken],
      hosts: socketHostRule(SOCKET_HOST),
      onSocket: true,
    });
    this.socketServer = mcpServer(socketHandler);
    // The folder's permissions admit the caller (workspaceSockets.ts); the token is added here, so none leaves this machine.
    this.workspaceSockets = new WorkspaceSockets({
      dir: stableSocketDir({ tmpdir: options.tmpdir }),
      handler: (req, res) => {
        req.headers.authorization = `Bearer ${options.socketToken[0]}`;
        socketHandler(req, res);
      },
      log: (message, fields) => logger.info(message, fields),
    });
  }

  /** WebSocket upgrades on the port (the faces that take them, faces/sessionFace.ts). */
  onUpgrade(listener: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void): void {
    this.httpServer.on('upgrade', listener);
  }

  /** Listens on 127.0.0.1, on a port the system picks. */
  listenOnPort(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.httpServer.once('error', reject);
      this.httpServer.listen(0, LOOPBACK_HOST, () => {
        this.httpServer.off('error', reject);
        resolve();
      });
    });
  }

  get port(): number {
    const address = this.httpServer.address() as AddressInfo | null;
    if (!address) throw new Error('the companion is not listening');
    return address.port;
  }

  /** The socket beside the port, in its private folder (named by the PID and the port, as the discovery file is). */
  async listenOnSocket(): Promise<void> {
    if (!this.socketServer) return;
    const { logger } = this.options;
    let socket: CompanionSocket;
    try {
      const base = ensureSocketBaseDir(this.options.tmpdir ?? os.tmpdir());
      const swept = sweepStaleSocketDirs(base);
      if (swept.length > 0) logger.info('removed socket folders of dead processes', { folders: swept });
      socket = new CompanionSocket(base, this.options.idePid, this.port);
    } catch (err) {
      logger.warn('no Unix socket: its folder was refused', { error: describeError(err) });
      return;
    }
    if (!socket.pathFits) {
      logger.warn('no Unix socket: its path is too long for a socket address', { path: socket.socketPath });
      return;
    }
    this.socket = socket;
    try {
      await socket.listen(this.socketServer, this.options.socketToken[0]);
    } catch (err) {
      socket.removeSync();
      this.socket = undefined;
      logger.warn('no Unix socket: it could not be created', { path: socket.socketPath, error: describeError(err) });
    }
  }

  /** Our folders' sockets at the stable address (each root as given and as its real path); a failure costs the remote flows only. */
  async bindWorkspaceSockets(folders: readonly string[]): Promise<void> {
    if (!this.workspaceSockets) return;
    const roots = new Set<string>();
    for (const root of folders) {
      roots.add(root);
      try {
        roots.add(fs.realpathSync(root));
      } catch {
        // A folder that is gone has no other name.
      }
    }
    try {
      await this.workspaceSockets.update([...roots]);
    } catch (err) {
      this.options.logger.warn('no workspace sockets: their folder was refused', { error: describeError(err) });
    }
  }

  /** The Unix socket a relay connects to; undefined before start or without one. */
  get socketPath(): string | undefined {
    return this.socket && this.socketServer?.listening ? this.socket.socketPath : undefined;
  }

  /** The socket's private folder (the socket and the token file): what a container mounts. */
  get socketDir(): string | undefined {
    return this.socketPath === undefined ? undefined : this.socket!.dir;
  }

  /** The folder the socket folders are in (ours and other companions'); undefined without a socket. */
  get socketBase(): string | undefined {
    return this.socket ? path.dirname(this.socket.dir) : undefined;
  }

  /** The stable address's sockets this companion answers on now (folder -> socket). */
  get workspaceSocketPaths(): Record<string, string> {
    return this.workspaceSockets?.owned ?? {};
  }

  /** Synchronous, so exit handlers can call it: the socket folder and the workspace sockets go. */
  removeSync(): void {
    this.socket?.removeSync();
    this.workspaceSockets?.removeSync();
  }

  /** The workspace sockets released (their servers closed, our socket files removed). */
  async closeWorkspaceSockets(): Promise<void> {
    await this.workspaceSockets?.close();
  }

  /** The port and the socket stop listening; their open connections end. */
  async close(): Promise<void> {
    await Promise.all([this.httpServer, this.socketServer].map((server) => closeServer(server)));
  }
}
