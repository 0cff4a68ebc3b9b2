/**
 * The faces of the agents asked for beyond the core (faces/registry.ts),
 * made from what the companion lends every face (FaceHost) and called as
 * one, so that the companion names none. Which of them are served now is the
 * roster's to say (agentRoster.ts).
 */
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { CompanionNotification, IdeContext } from '@ide-companion/protocol';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { AgentFace, FaceHost } from './faces/agentFace.js';
import { faceDefinition, type FaceSettings } from './faces/registry.js';
import { isWebSocketFace, upgradeRouter, type FileMention, type SessionFace } from './faces/sessionFace.js';
import type { HealthItem } from './healthLines.js';
import type { SessionInfo } from './sessions.js';

export interface FaceChoices {
  /** Where each face's discovery goes instead of its agent's own folder (tests). */
  paths?: Partial<Record<AgentName, string>> | undefined;
  /** The user's choices for the faces that take some. */
  settings?: FaceSettings | undefined;
}

export class CompanionFaces {
  /** Every face made, served or not. */
  readonly all: readonly AgentFace[];
  /** The faces with sessions of their own, each called the same way (faces/sessionFace.ts). */
  private readonly withSessions: readonly SessionFace[];

  constructor(agents: readonly AgentName[], host: FaceHost, choices: FaceChoices) {
    this.all = agents.flatMap((agent) => {
      const face = faceDefinition(agent)?.create(host, { path: choices.paths?.[agent], settings: choices.settings?.[agent as keyof FaceSettings] });
      return face ? [face] : [];
    });
    this.withSessions = this.all.flatMap((face) => face.sessions ?? []);
  }

  /** The tokens the companion's port takes for the faces whose sessions are the core's, each naming its agent. */
  portTokens(): (readonly [string, AgentName])[] {
    return this.all.flatMap((f) => (f.portToken ? [[f.portToken, f.agent] as const] : []));
  }

  /** One listener for every WebSocket face on the one port: each says which upgrades are its own; undefined when no face takes any. */
  upgradeListener(): ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined {
    const webSocketFaces = this.withSessions.filter(isWebSocketFace);
    return webSocketFaces.length > 0 ? upgradeRouter(webSocketFaces) : undefined;
  }

  /** A diff's outcome to the face whose session it is, in its agent's words; false when no face owns the session. */
  deliver(sessionId: string, notification: CompanionNotification): boolean {
    const face = this.withSessions.find((f) => f.owns(sessionId));
    face?.deliver(sessionId, notification);
    return face !== undefined;
  }

  /** The agent of one of the faces' own sessions; undefined for any other session. */
  agentOf(sessionId: string): AgentName | undefined {
    return this.withSessions.find((face) => face.owns(sessionId))?.agent;
  }

  /** Every face's own sessions. */
  sessions(): SessionInfo[] {
    return this.withSessions.flatMap((face) => face.list());
  }

  /** Tells every face's connected sessions that take a mention; returns how many heard it. */
  mention(mention: FileMention): number {
    return this.withSessions.reduce((heard, face) => heard + face.mention(mention), 0);
  }

  contextChanged(context: IdeContext, selectionBackward: boolean): void {
    for (const face of this.withSessions) face.contextChanged(context, selectionBackward);
  }

  /** Each face's sessions end (their waiting calls answered first). */
  async closeSessions(): Promise<void> {
    for (const face of this.withSessions) await face.close();
  }

  /** Each face stops serving (its socket, its router). */
  async stop(): Promise<void> {
    for (const face of this.all) await face.stop?.();
  }

  /** The variables the served faces give the editor's terminals. */
  terminalEnv(served: readonly AgentName[]): Record<string, string> {
    return Object.assign({}, ...this.all.filter((face) => served.includes(face.agent)).map((face) => face.terminalEnv?.())) as Record<string, string>;
  }

  /** Where `agent`'s face is (its `state`), when it says. */
  state(agent: AgentName): object | undefined {
    return this.all.find((face) => face.agent === agent)?.state?.();
  }

  /** What the faces say of themselves in the ends' health checks. */
  health(): HealthItem[] {
    return this.all.flatMap((face) => face.health?.() ?? []);
  }
}
