/**
 * Each agent's lock file under check, by one rule from its contract (protocol's AGENT_LOCKS: schema, liveness
 * field, port): found where the agent looks, named as it names it, private, naming a running IDE. Without a file
 * the companion does not serve the agent: its checks are skipped, never failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_LOCKS } from '@ide-companion/protocol';
import type { AgentLockContract } from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES, ampIdeDir, claudeIdeDir, copilotIdeDir, droidIdeDir, qwenIdeDir } from '@ide-companion/shared/agentPaths';
import { parseAnyDiscoveryFileName } from '@ide-companion/client/discoveryFiles';
import { lockFileNamingPid } from '@ide-companion/client/companions';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { describeError } from '@ide-companion/server/logger';
import type { CheckId } from './catalogue.js';
import type { CheckRun } from './checkRun.js';

export interface LockRead {
  file: string;
  json?: Record<string, unknown>;
}

/** Where each agent's lock files are, and the checks that need its file (skipped, never failed, without one). */
const LOCK_PLACES: Readonly<Record<AgentLockContract['agent'], { dir: (env: NodeJS.ProcessEnv) => string; ids: readonly CheckId[] }>> = {
  qwen: { dir: qwenIdeDir, ids: ['agents.qwen.lockFile', 'agents.qwen.session'] },
  copilot: { dir: copilotIdeDir, ids: ['agents.copilot.lockFile', 'agents.copilot.session'] },
  droid: { dir: droidIdeDir, ids: ['agents.droid.lockFile', 'agents.droid.session'] },
  amp: { dir: ampIdeDir, ids: ['agents.amp.lockFile', 'agents.amp.session', 'agents.amp.refusals'] },
  claude: {
    dir: claudeIdeDir,
    ids: ['agents.claude.lockFile', 'agents.claude.session', 'agents.claude.refusals', 'agents.claude.handshake', 'agents.claude.lifecycle'],
  },
};

/** What the agent's CLI needs of the file beyond its schema. */
const LOCK_EXTRAS: Partial<Record<AgentLockContract['agent'], (json: Record<string, unknown>) => string | undefined>> = {
  copilot: (json) => (fs.existsSync(json['socketPath'] as string) ? undefined : `names no socket that exists (${String(json['socketPath'])})`),
};

/**
 * The agent's lock file naming the companion's port, checked against the
 * agent's own contract (protocol's AGENT_LOCKS: schema, liveness field, port):
 * one check for every agent. Without a file the companion does not serve the
 * agent: its checks are skipped, never failed. The file's JSON is returned
 * even when it failed, for the session checks to try its token.
 */
export function checkLockFile(run: CheckRun, contract: AgentLockContract, env: NodeJS.ProcessEnv): LockRead | undefined {
  const { record, target } = run;
  const { dir, ids } = LOCK_PLACES[contract.agent];
  const name = AGENT_DISPLAY_NAMES[contract.agent];
  const file = contract.ownPort ? lockNamingIde(contract.agent, dir(env), target.discoveryFile) : path.join(dir(env), contract.fileName(target.port));
  if (file === undefined || !fs.existsSync(file)) {
    const why = contract.ownPort
      ? `no ${name} lock file in ${dir(env)} names this companion's IDE: this companion does not serve ${name}`
      : `no ${name} lock file names port ${target.port} in ${dir(env)}: this companion does not serve ${name}`;
    for (const id of ids) record.skip(id, why);
    return undefined;
  }
  const lockFileId = ids[0]!;
  let json: Record<string, unknown> | undefined;
  let problem: string | undefined;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    problem = `does not parse: ${describeError(err)}`;
  }
  if (json !== undefined) {
    const parsed = contract.schema.safeParse(json);
    const pid = json[contract.pidField];
    problem =
      (parsed.success ? undefined : `is not what ${name} reads (${schemaIssues(parsed.error)}): ${contract.refusal}`) ??
      modeProblem(file) ??
      (contract.namesPort && json['port'] !== target.port ? `names port ${String(json['port'])}, not ${target.port}` : undefined) ??
      (typeof pid !== 'number' || !isProcessAlive(pid) ? `its ${contract.pidField} ${String(pid)} is not running: ${contract.refusal}` : undefined) ??
      LOCK_EXTRAS[contract.agent]?.(json);
  }
  if (problem) record.fail(lockFileId, `${file} ${problem}`);
  else {
    const port = contract.namesPort ? `port ${target.port}, ` : '';
    record.pass(lockFileId, `${file}: private, ${port}${contract.pidField} ${String(json![contract.pidField])} running`);
  }
  return { file, json };
}

/**
 * The lock file of a face with a port of its own (Factory Droid's, named by
 * that port): the one whose pid is the IDE's the discovery file names.
 */
function lockNamingIde(agent: AgentLockContract['agent'], dir: string, discoveryFile: string | undefined): string | undefined {
  const pid = discoveryFile === undefined ? undefined : parseAnyDiscoveryFileName(path.basename(discoveryFile))?.pid;
  return pid === undefined ? undefined : lockFileNamingPid(agent, dir, pid);
}

/** A schema's issues as one short phrase: each field's path and message. */
function schemaIssues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'the file'}: ${issue.message}`)
    .join('; ');
}

export const lockOf = (agent: AgentLockContract['agent']): AgentLockContract => AGENT_LOCKS.find((c) => c.agent === agent)!;

/** What is wrong with a lock file's place and modes, or undefined. */
function modeProblem(file: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const fileMode = fs.statSync(file).mode & 0o777;
  const dirMode = fs.statSync(path.dirname(file)).mode & 0o777;
  if (fileMode & 0o077) return `${file} is readable by others (mode ${fileMode.toString(8)}): its token is exposed`;
  if (dirMode & 0o077) return `${path.dirname(file)} is open to others (mode ${dirMode.toString(8)})`;
  return undefined;
}
