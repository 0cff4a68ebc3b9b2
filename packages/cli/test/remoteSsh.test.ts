/**
 * Gemini CLI over SSH reaches the editor here (issue 18): `ide-companion
 * serve` on this machine; `ide-companion ssh remote --remote-path DIR` into a
 * real sshd whose network namespace cannot reach this loopback (so only the
 * forwarded socket carries the traffic), as a second user with the project at
 * another path; the real gemini 0.61.0 started in that shell connects, the
 * model sees the remote paths, and a proposed write is reviewed in serve here:
 * edited and accepted, the remote file holds the user's bytes. When the shell
 * ends, nothing of ours is left on the remote.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  findGeminiCli,
  makeGeminiHome,
  shellCommand,
  skipUnless,
  sleep,
  SSH_TEST_USER,
  sshdProblem,
  startTestSshd,
  submitLine,
  Tmux,
  waitFor,
  waitIdeConnected,
  which,
} from '@ide-companion/testkit';
import { SERVE_IDE_INFO } from '@ide-companion/terminal';
import { BIN, EDITED, editAndAcceptInServe, holds, ORIGINAL, reportedRequest, START_TIMEOUT_MS, startServe, STEP_TIMEOUT_MS } from './support/remoteServe.js';

const cli = findGeminiCli();
const problem = cli === undefined ? undefined : sshdProblem();
const skip =
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux') ||
  skipUnless(problem === undefined, `sshd in a network namespace (${problem})`, 'apt-get install openssh-server socat iproute2; run as root');

test(
  'gemini in an ide-companion ssh shell, on a remote that cannot see this loopback: connected to serve, remote paths for the model, an edited accept lands in the remote file',
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    const host = await startServe(t);
    // sshd's files outside /tmp: its namespace has a /tmp of its own.
    const sshd = await startTestSshd(`/var/tmp/ide-companion-sshd-${process.pid}`);
    const shell = new Tmux(200, 50);
    t.after(async () => {
      await shell.stop();
      await sshd.stop();
      fs.rmSync(`/var/tmp/ide-companion-sshd-${process.pid}`, { recursive: true, force: true });
    });

    // The remote: the project checked out at another path; a fresh HOME for gemini (a previous session there
    // costs a scripted turn), with its settings and the scripted turns.
    const remoteProject = path.join(sshd.home, 'proj');
    const geminiHome = path.join(sshd.home, 'gemini-home');
    for (const dir of [remoteProject, geminiHome]) fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(remoteProject);
    fs.writeFileSync(path.join(remoteProject, 'a.txt'), ORIGINAL);
    makeGeminiHome(geminiHome);
    fs.copyFileSync(host.dir.fakeResponses, path.join(geminiHome, 'turns.jsonl'));
    for (const dir of [remoteProject, geminiHome]) chownTree(dir, sshd.uid, sshd.gid);
    // A saved file: serve's context, which the model should see by its remote path.
    fs.writeFileSync(path.join(host.dir.workspace, 'seen.txt'), 'seen\n');

    // The companion's port is not reachable from the remote: only the forwarded socket is.
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(host.serve.screen())![1]);
    const probe = sshd.run(
      `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('REACHED')).on('error', (e) => console.log(e.code))"`,
    );
    assert.equal(probe.stdout.trim(), 'ECONNREFUSED', `the remote must not reach this loopback: ${probe.stdout}${probe.stderr}`);

    shell.start(shellCommand([process.execPath, BIN, 'ssh', 'remote', '--remote-path', remoteProject, '--', ...sshd.sshArgs], { TMPDIR: host.dir.tmpdir }), {
      cwd: host.dir.workspace,
    });
    await shell.waitForText(`gemini here reaches ${SERVE_IDE_INFO.displayName} on the other end`, STEP_TIMEOUT_MS);
    await sleep(500);
    shell.type(
      `cd ${remoteProject} && HOME=${geminiHome} GEMINI_API_KEY=dummy node ${cli!.geminiBin} --fake-responses ${geminiHome}/turns.jsonl --model gemini-2.5-flash --approval-mode default`,
    );
    shell.keys('Enter');
    await shell.waitForText('Type your message', START_TIMEOUT_MS);
    const { status } = await waitIdeConnected(shell, START_TIMEOUT_MS);
    assert.equal(status, `Connected to ${SERVE_IDE_INFO.displayName}`);
    // The token travelled on ssh's stdin: no command line shows it, here or there.
    const token = (
      JSON.parse(fs.readFileSync(path.join(host.dir.tmpdir, 'gemini', 'ide', fs.readdirSync(path.join(host.dir.tmpdir, 'gemini', 'ide'))[0]!), 'utf8')) as {
        authToken: string;
      }
    ).authToken;
    assert.ok(!execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).includes(token), 'no local command line holds the token');
    const remotePs = sshd.run('ps -eo args');
    assert.ok(remotePs.stdout.includes('connect.mjs') && !remotePs.stdout.includes(token), 'the relay runs there, its command line without the token');

    await submitLine(shell, 'please write a.txt');
    await editAndAcceptInServe(host).catch((err: Error) => {
      throw new Error(`${err.message}\n--- the remote shell ---\n${shell.screen()}`);
    });
    await holds(`${remoteProject}/a.txt on the remote`, () => sshd.run(`cat ${remoteProject}/a.txt`).stdout, EDITED);
    assert.equal(fs.readFileSync(host.file, 'utf8'), ORIGINAL, "the CLI wrote its own copy, on the remote; this machine's is the editor's");
    await shell.waitForText(/Done\./, STEP_TIMEOUT_MS);

    // The scripted turns are spent: the CLI reports the request it could not send, in the remote's /tmp.
    await submitLine(shell, 'thanks');
    const request = await waitFor(
      () => {
        const files = sshd.run('ls /tmp').stdout.split('\n');
        return reportedRequest(files, (name) => sshd.run(`cat /tmp/${name}`).stdout);
      },
      'the CLI to report its request to the model',
      STEP_TIMEOUT_MS,
    );
    assert.match(request, new RegExp(`${remoteProject}/seen\\.txt`), 'the model saw the open file by its remote path');
    assert.ok(!request.includes(host.dir.workspace), 'no path of this machine reached the model');

    // Leaving: gemini, then the shell. Nothing of ours stays on the remote.
    shell.keys('C-c');
    await sleep(300);
    shell.keys('C-c');
    await shell.waitForText(/^\$\s*$/m, STEP_TIMEOUT_MS);
    shell.type('exit');
    shell.keys('Enter');
    await waitFor(
      () => {
        const left = sshd.run(`ls -d /tmp/ide-companion-ssh.* /tmp/gemini/ide/gemini-ide-server-* 2>/dev/null; true`).stdout.trim();
        return left === '' || undefined;
      },
      `the remote files to go (user ${SSH_TEST_USER})`,
      STEP_TIMEOUT_MS,
    );
  },
);

function chownTree(dir: string, uid: number, gid: number): void {
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, uid, gid);
    else fs.chownSync(p, uid, gid);
  }
}
