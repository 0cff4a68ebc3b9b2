/**
 * A real sshd for the SSH flow's tests (docs/remote.md), as
 * ../shared/testing-real-editors.md sets one up: a second user, keys made for
 * the test, sshd on 127.0.0.1 inside a network namespace of its own (and a
 * private /tmp), so the remote side cannot reach this machine's loopback: only
 * what ssh forwards gets across. ssh reaches it with a ProxyCommand that
 * enters that namespace (nsenter + socat).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { which } from './external.js';
import { repoRoot } from './geminiCli.js';
import { waitFor } from './wait.js';

export const SSH_TEST_USER = 'ideremote';
const SSHD = '/usr/sbin/sshd';

/** Why the SSH tests cannot run here, or undefined. */
export function sshdProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'the SSH tests need root (a second user, a network namespace)';
  for (const tool of ['ssh', 'ssh-keygen', 'unshare', 'nsenter', 'socat', 'ip']) if (!which(tool)) return `${tool} is not installed`;
  if (!fs.existsSync(SSHD)) return 'openssh-server is not installed';
  const probe = spawnSync('unshare', ['-n', '-m', 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) return `unshare -n -m fails here: ${probe.stderr.trim()}`;
  return undefined;
}

export interface TestSshd {
  /** The remote user's home. */
  home: string;
  uid: number;
  gid: number;
  /** `-F FILE`: a ssh config whose Host `remote` reaches this sshd as the user. */
  configFile: string;
  /** ssh options for the tests' own commands on the remote. */
  sshArgs: string[];
  /**
   * Where a file of this repository is on the remote. The remote's /tmp is its
   * own, and a clone may live in a private folder there: the repository is
   * bound at a path the remote user can reach.
   */
  there(repoPath: string): string;
  /** Runs a command on the remote as the user; stdout. */
  run(command: string): { status: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
}

function ensureUser(): { uid: number; gid: number; home: string } {
  if (spawnSync('id', ['-u', SSH_TEST_USER]).status !== 0) {
    const add = spawnSync('useradd', ['-m', '-s', '/bin/sh', SSH_TEST_USER], { encoding: 'utf8' });
    // Another test file may have made it meanwhile (files run in parallel).
    if (add.status !== 0 && spawnSync('id', ['-u', SSH_TEST_USER]).status !== 0) throw new Error(`useradd ${SSH_TEST_USER}: ${add.stderr}`);
  }
  // A locked account ('!') is refused with UsePAM no; '*' is no password, key login allowed.
  spawnSync('usermod', ['-p', '*', SSH_TEST_USER]);
  const uid = Number(spawnSync('id', ['-u', SSH_TEST_USER], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', SSH_TEST_USER], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid, home: `/home/${SSH_TEST_USER}` };
}

/** Starts sshd in its own network namespace; `dir` (outside /tmp, which the namespace hides) holds its files. */
export async function startTestSshd(dir: string): Promise<TestSshd> {
  const { uid, gid, home } = ensureUser();
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  const key = path.join(dir, 'id_ed25519');
  const hostKey = path.join(dir, 'host_ed25519');
  for (const k of [key, hostKey]) {
    fs.rmSync(k, { force: true });
    fs.rmSync(`${k}.pub`, { force: true });
    const gen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', k], { encoding: 'utf8' });
    if (gen.status !== 0) throw new Error(`ssh-keygen: ${gen.stderr}`);
  }
  // This sshd's own key list (test files run in parallel, each with its sshd and key).
  const authorizedKeys = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorizedKeys, fs.readFileSync(`${key}.pub`), { mode: 0o644 });
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const port = 2222;
  const sshdConfig = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    sshdConfig,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      `AuthorizedKeysFile ${authorizedKeys}`,
      `AllowUsers ${SSH_TEST_USER}`,
      'AllowStreamLocalForwarding yes',
      'StreamLocalBindUnlink yes',
      'StrictModes no',
      'PrintMotd no',
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  // unshare execs sh, which execs sshd: the child's PID is sshd's, the namespace's anchor. The repository
  // (the CLI, the pinned gemini) is bound into the namespace first: the tmpfs may hide it, and its
  // parent folders may be closed to the remote user.
  const repoThere = path.join(dir, 'repo');
  const sshd: ChildProcess = spawn(
    'unshare',
    [
      '-n',
      '-m',
      'sh',
      '-c',
      `ip link set lo up && mkdir -p ${repoThere} && mount --bind ${repoRoot} ${repoThere} && mount -t tmpfs -o mode=1777 tmpfs /tmp && exec ${SSHD} -D -e -f ${sshdConfig}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  sshd.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const configFile = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    configFile,
    [
      'Host remote',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${SSH_TEST_USER}`,
      `  IdentityFile ${key}`,
      '  IdentitiesOnly yes',
      '  UserKnownHostsFile /dev/null',
      '  StrictHostKeyChecking no',
      '  LogLevel ERROR',
      '  BatchMode yes',
      `  ProxyCommand nsenter -t ${sshd.pid} -n socat STDIO TCP:127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  const sshArgs = ['-F', configFile];
  const run = (command: string) => {
    const r = spawnSync('ssh', [...sshArgs, 'remote', command], { encoding: 'utf8', timeout: 60_000 });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
  await waitFor(
    () => {
      if (sshd.exitCode !== null) throw new Error(`sshd exited ${sshd.exitCode}: ${log}`);
      return run('true').status === 0 || undefined;
    },
    'sshd to accept the test user',
    30_000,
    200,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- sshd ---\n${log}`);
  });
  return {
    home,
    uid,
    gid,
    configFile,
    sshArgs,
    there: (repoPath) => (repoPath.startsWith(repoRoot + path.sep) ? path.join(repoThere, path.relative(repoRoot, repoPath)) : repoPath),
    run,
    stop: async () => {
      if (sshd.exitCode === null) {
        const exited = new Promise((resolve) => sshd.once('exit', resolve));
        sshd.kill('SIGTERM');
        await exited;
      }
    },
  };
}
