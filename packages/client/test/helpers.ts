/** Shared by the client tests: real companions in private temp dirs, and a diff view the test drives. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Companion } from '@ide-companion/server';
import { RecordingEditor, startTestCompanion, type TestCompanionOptions } from '@ide-companion/server/testing';
import { makeTempDir } from '@ide-companion/testkit';
import { CompanionClient, type IdeProcess } from '../src/index.js';

export interface Harness {
  companion: Companion;
  view: RecordingEditor;
  tmp: string;
  workspace: string;
  /** An IDE process that matches the companion, so discovery skips the process walk. */
  ideProcess: IdeProcess;
  /** Env with no GEMINI_CLI_* vars (the test runner's own must not leak in). */
  env: NodeJS.ProcessEnv;
  cleanup: () => Promise<void>;
}

export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GEMINI_CLI_')) env[k] = v;
  // This machine is a container: dial loopback as a dev container does.
  env['REMOTE_CONTAINERS'] = '1';
  return { ...env, ...extra };
}

export async function startCompanion(options: TestCompanionOptions = {}): Promise<Harness> {
  const t = await startTestCompanion(options);
  return {
    ...t,
    ideProcess: { pid: options.idePid ?? process.pid, command: 'test-ide', source: 'env', chain: [] },
    env: cleanEnv(),
  };
}

export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** A temp dir with a workspace (`ws`) and the CLI's discovery folder, for a companion the test serves itself. */
export interface Place {
  tmp: string;
  workspace: string;
  cleanup(): void;
}

export function place(prefix: string): Place {
  const t = makeTempDir(prefix);
  const workspace = path.join(t.path, 'ws');
  fs.mkdirSync(path.join(t.path, 'gemini', 'ide'), { recursive: true });
  fs.mkdirSync(workspace);
  return { tmp: t.path, workspace, cleanup: t.cleanup };
}

/** A discovery file pointing at `port`, named after this process. */
export function advertise(p: Place, port: number, token: string): void {
  fs.writeFileSync(
    path.join(p.tmp, 'gemini', 'ide', `gemini-ide-server-${process.pid}-${port}.json`),
    JSON.stringify({ port, workspacePath: p.workspace, authToken: token, ideInfo: { name: 'fixture', displayName: 'Fixture' } }),
    { mode: 0o600 },
  );
}

/** A client that finds its companion in `p` with this process as the IDE: no well-known ports, no reconnect, no heartbeat unless `extra` says. */
export function client(p: Place, extra: ConstructorParameters<typeof CompanionClient>[0] = {}): CompanionClient {
  return new CompanionClient({
    cwd: p.workspace,
    tmpdir: p.tmp,
    env: cleanEnv(),
    ideProcess: { pid: process.pid, command: '', source: 'env', chain: [] },
    wellKnownPorts: false,
    reconnect: false,
    heartbeatMs: 0,
    ...extra,
  });
}
