import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { CompanionClient } from '../src/index.js';
import { cleanEnv } from './helpers.js';

test(
  'a frozen companion (SIGSTOP: sockets open, nothing answers) is noticed by the heartbeat',
  { skip: process.platform === 'win32' ? 'no SIGSTOP' : false },
  async () => {
    const tmp = makeTempDir('ide-heartbeat-');
    const workspace = path.join(tmp.path, 'ws');
    fs.mkdirSync(workspace);
    const serverUrl = import.meta.resolve('@ide-companion/server');
    const script = path.join(tmp.path, 'companion.mjs');
    fs.writeFileSync(
      script,
      `import { Companion } from ${JSON.stringify(serverUrl)};
     const c = new Companion({ ideInfo: { name: 'frozen', displayName: 'Frozen' }, workspaceRoots: [${JSON.stringify(workspace)}], tmpdir: ${JSON.stringify(tmp.path)}, handleSignals: false });
     await c.start();
     process.stdout.write('ready\\n');
     setInterval(() => {}, 1000);`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const client = new CompanionClient({
      cwd: workspace,
      tmpdir: tmp.path,
      env: cleanEnv(),
      ideProcess: { pid: child.pid!, command: '', source: 'env', chain: [] },
      reconnect: false,
      heartbeatMs: 500,
      wellKnownPorts: false,
    });
    try {
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      assert.ok(await client.connect(), client.status.details);
      process.kill(child.pid!, 'SIGSTOP');
      await waitFor(() => client.status.status === 'disconnected', 'the heartbeat to notice', 30_000);
      assert.match(client.status.details ?? '', /heartbeat failed|stopped answering/);
    } finally {
      await client.stop();
      child.kill('SIGKILL');
      tmp.cleanup();
    }
  },
);
