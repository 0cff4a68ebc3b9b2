/**
 * `agentsServed`, read by doctor and list for a companion whose discovery file does not say: each lock file found as
 * protocol's zod-free LOCK_FILE_NAMING names it, Factory Droid's by the IDE's pid under a port of its face's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentsServed } from '@ide-companion/client/companions';
import { ampIdeDir, claudeIdeDir, droidIdeDir, qwenIdeDir } from '@ide-companion/shared/agentPaths';

function write(file: string, content: object): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(content));
}

test("agentsServed: each agent's lock file by its own name and pid field; Droid's under its face's own port, by the IDE's pid", (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-served-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const env = {
    HOME: tmp,
    QWEN_HOME: path.join(tmp, 'q'),
    CLAUDE_CONFIG_DIR: path.join(tmp, 'c'),
    COPILOT_HOME: path.join(tmp, 'co'),
    AMP_DATA_HOME: path.join(tmp, 'a'),
  };
  const port = 4100;
  const pid = 4242;
  write(path.join(qwenIdeDir(env), `${port}.lock`), { ppid: pid });
  // Amp's file is PORT.json: a PORT.lock naming the pid is not Amp's.
  write(path.join(ampIdeDir(env), `${port}.lock`), { pid });
  // Claude's names another IDE.
  write(path.join(claudeIdeDir(env), `${port}.lock`), { pid: pid + 1 });
  // Droid's: named by a port that is not the companion's; a file of another form beside it is not read.
  write(path.join(droidIdeDir(env), `${port}.json`), { pid });
  assert.deepEqual(agentsServed(port, pid, env), ['gemini', 'qwen']);
  write(path.join(ampIdeDir(env), `${port}.json`), { pid });
  write(path.join(droidIdeDir(env), '51234.lock'), { pid });
  assert.deepEqual(agentsServed(port, pid, env), ['gemini', 'qwen', 'amp', 'droid']);
  assert.deepEqual(agentsServed(port, pid + 7, env), ['gemini']);
});
