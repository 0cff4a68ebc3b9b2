/**
 * The CLI's side in an editor end's tests: testkit's recording MCP client,
 * connected with what the editor's discovery file says, plus waits on the
 * context and notifications it receives. One for every editor's harness.
 */
import {
  ContextUpdateNotification,
  GetSelectionResultSchema,
  type DiscoveryFile,
  type IdeContext,
  type Selection,
  GetSelectionTool,
} from '@ide-companion/protocol';
import { connectRecordingClient, type RecordingClient } from './mcpClient.js';
import { waitFor } from './wait.js';

export interface EditorClient extends RecordingClient {
  /** The newest ide/contextUpdate payload. */
  lastContext(): IdeContext | undefined;
  /** Waits for a context update for which `probe` returns a value; the error shows the last context seen. */
  waitForContext<T>(probe: (context: IdeContext) => T | undefined | false, what: string): Promise<T>;
  waitForNotification(method: string, filter?: (params: any) => boolean): Promise<any>;
  /** What the getSelection tool answers now (checked against its schema): the selection the agent gets, or null. */
  getSelection(): Promise<Selection | null>;
}

export async function connectEditorClient(discovery: DiscoveryFile, timeoutMs: number): Promise<EditorClient> {
  const recording = await connectRecordingClient({ port: discovery.port, token: discovery.authToken });
  const { notifications } = recording;
  const lastContext = () => {
    for (let i = notifications.length - 1; i >= 0; i--) {
      if (notifications[i]!.method === ContextUpdateNotification.method) return notifications[i]!.params as IdeContext;
    }
    return undefined;
  };
  return {
    ...recording,
    lastContext,
    waitForContext: (probe, what) =>
      waitFor(
        () => {
          const context = lastContext();
          return context ? probe(context) : undefined;
        },
        what,
        timeoutMs,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; last context: ${JSON.stringify(lastContext())}`);
      }),
    waitForNotification: (method, filter = () => true) =>
      waitFor(() => notifications.find((n) => n.method === method && filter(n.params))?.params, method, timeoutMs),
    getSelection: async () => {
      const result = (await recording.client.callTool({ name: GetSelectionTool.name, arguments: {} })) as { content: Array<{ text: string }> };
      return GetSelectionResultSchema.parse(JSON.parse(result.content[0]!.text)).selection;
    },
  };
}

/** What an editor harness's session gives: its discovery file once the companion runs, and a way to end it. */
export interface EditorSession {
  discovery(): Promise<{ content: DiscoveryFile }>;
  close(): Promise<void>;
}

/** Starts an editor session, waits for its companion and connects one client; the session is closed if that fails. */
export async function startEditorWithClient<S extends EditorSession>(
  start: () => Promise<S>,
  timeoutMs: number,
): Promise<{ s: S; c: EditorClient; discovery: DiscoveryFile }> {
  const s = await start();
  try {
    const { content } = await s.discovery();
    const c = await connectEditorClient(content, timeoutMs);
    return { s, c, discovery: content };
  } catch (err) {
    await s.close();
    throw err;
  }
}

/** The open files of a context update (none when absent). */
export function openFiles(context: IdeContext) {
  return context.workspaceState?.openFiles ?? [];
}
