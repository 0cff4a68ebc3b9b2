/**
 * Against the real client: IdeClient from the pinned @google/gemini-cli-core
 * (the code inside `gemini`) finds the companion that Neovim started, sees
 * Neovim's context, and gets a diff accepted in Neovim with the user's edits.
 * IdeClient is a singleton that reads cwd, TMPDIR and env when it starts, so it
 * runs in a child process: the server package's JSON-lines driver fixture.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { findGeminiCli, repoRoot, skipUnless, waitFor } from '@ide-companion/testkit';
import { hasNvim, inProposal, startNeovim, TIMEOUT, waitForDiff, type NeovimSession } from './harness.js';

const cli = findGeminiCli();
const DRIVER = path.join(repoRoot, 'packages', 'server', 'test', 'fixtures', 'ide-client-driver.mjs');
const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') || skipUnless(cli !== undefined && fs.existsSync(DRIVER), 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

type DriverEvent = { event: string; [key: string]: any };

/** The real IdeClient, started the way `gemini` run in Neovim's terminal would be: cwd, TMPDIR and GEMINI_CLI_IDE_PID. */
class RealIdeClient {
  readonly events: DriverEvent[] = [];
  private stderr = '';

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as DriverEvent);
      } catch {
        this.stderr += `${line}\n`;
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
  }

  static async start(s: NeovimSession, idePid = s.pid): Promise<RealIdeClient> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('GEMINI_CLI_IDE_') || key === 'TERM_PROGRAM') delete env[key];
    // As a Neovim terminal would have it; REMOTE_CONTAINERS because this machine is a container.
    Object.assign(env, { TMPDIR: s.tmp, GEMINI_CLI_IDE_PID: String(idePid), REMOTE_CONTAINERS: '1' });
    const child = spawn(process.execPath, [DRIVER, cli!.coreDir], { cwd: s.workspace, env, stdio: 'pipe' });
    const client = new RealIdeClient(child);
    await client.waitFor((e) => e.event === 'ready', 'the driver to load IdeClient');
    return client;
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin.write(JSON.stringify(command) + '\n');
  }

  waitFor(match: (e: DriverEvent) => boolean, what: string): Promise<DriverEvent> {
    return waitFor(() => this.events.find(match), what, TIMEOUT * 3).catch((err: Error) => {
      throw new Error(`${err.message}\n--- events ---\n${this.events.map((e) => JSON.stringify(e)).join('\n')}\n--- stderr ---\n${this.stderr}`);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

describe('Neovim companion with the real Gemini CLI client', { skip, timeout: 180_000 }, () => {
  test('IdeClient connects to Neovim, sees its context, and an openDiff accepted in Neovim returns the edited text', async () => {
    const s = await startNeovim({ files: { 'app.ts': 'const a = 1;\n' } });
    await s.discovery();
    const client = await RealIdeClient.start(s);
    try {
      client.send({ cmd: 'connect' });
      const status = await client.waitFor((e) => e.event === 'status' && e['status'] !== 'connecting', 'connect()');
      assert.equal(status['status'], 'connected', String(status['details']));
      assert.equal(status['ide'], 'Neovim');
      assert.equal(status['diffing'], true);

      const file = path.join(s.workspace, 'app.ts');
      await s.nvim.command('edit app.ts');
      await s.nvim.input('0fa');
      const pushed = await client.waitFor(
        (e) => e.event === 'context' && e['context']?.workspaceState?.openFiles?.[0]?.cursor?.character === 7,
        'context with the cursor on "a"',
      );
      assert.equal(pushed['context'].workspaceState.openFiles[0].path, file);

      client.send({ cmd: 'openDiff', filePath: file, newContent: 'const a = 2;\n' });
      const d = await waitForDiff(s, file);
      await s.lua("vim.api.nvim_buf_set_lines(..., 1, 1, false, {'// reviewed in Neovim'})", d.proposal);
      await inProposal(s, d.proposal, 'write');
      const result = await client.waitFor((e) => e.event === 'diffResult' && e['filePath'] === file, 'the diff outcome');
      assert.deepEqual(result['result'], { status: 'accepted', content: 'const a = 2;\n// reviewed in Neovim\n' });
    } finally {
      await client.stop();
      await s.close();
    }
  });

  test('with two Neovims on one folder, the client connects to the one its terminal names by pid', async () => {
    const first = await startNeovim();
    const second = await startNeovim({ sameFolderAs: first });
    try {
      await first.discovery();
      await second.discovery();
      const sessions = async (n: NeovimSession) => ((await n.lua<unknown[]>('return require("ide_companion.host").state.sessions')) ?? []).length;
      for (const [target, other] of [
        [second, first],
        [first, second],
      ] as const) {
        const [targetBefore, otherBefore] = [await sessions(target), await sessions(other)];
        const client = await RealIdeClient.start(first, target.pid);
        try {
          client.send({ cmd: 'connect' });
          const status = await client.waitFor((e) => e.event === 'status' && e['status'] !== 'connecting', 'connect()');
          assert.equal(status['status'], 'connected', String(status['details']));
          await waitFor(async () => (await sessions(target)) === targetBefore + 1, `a session in Neovim ${target.pid}`, TIMEOUT);
          assert.equal(await sessions(other), otherBefore);
        } finally {
          await client.stop();
        }
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});
