/** Shared by the client tests: real companions in private temp dirs, and a diff view the test drives. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Companion } from '@ide-companion/server';
import { RecordingEditor, startTestCompanion, type TestCompanionOptions } from '@ide-companion/server/testing';
import type { IdeProcess } from '../src/index.js';

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
