/**
 * `ide-companion ssh [user@]host [--remote-path DIR] [-- ssh options]`: the
 * user's shell on the remote, where `gemini` reaches the editor here. One
 * authentication (a ControlMaster that the other steps share):
 *  1. the master connection, with the user's ssh options;
 *  2. a private folder on the remote (mktemp, 0700) receiving, on stdin, the
 *     relay and the discovery file that gemini there reads (no token: the
 *     workspace socket's companion adds its own, which never leaves here);
 *  3. the shell, with the workspace's socket at the stable address forwarded
 *     into that folder (`ssh -R` of a Unix socket: ssh dials it afresh for
 *     each connection, so it reaches whichever companion serves the
 *     workspace then, across editor restarts), the discovery file put where gemini looks,
 *     GEMINI_CLI_IDE_* set, and everything removed when the shell ends.
 * Paths map from this workspace root to --remote-path (default: the same path).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cleanText, ENV } from '@ide-companion/protocol';
import type { Command } from './types.js';
import { SSH_SPEC, parseCommandArgs, usageOf } from '../commandTable.js';
import { EXIT, UsageError, printError, runWithExitCodes } from '../client/output.js';
import { discoveryFileThere, planRemote, RemotePlanError, type RemotePlan } from '../remote/remotePlan.js';
import { shellQuote } from '../remote/shellWords.js';

const usage = usageOf(SSH_SPEC);

/** The names of the files in the remote folder. */
const REMOTE = { relay: 'connect.mjs', socket: 'mcp.sock', discovery: 'discovery.json', enter: 'enter.sh' } as const;

/** Stands for the remote folder in the files sent, which only the remote knows until mktemp ran there. */
export const REMOTE_DIR_PLACEHOLDER = '@@IDE_COMPANION_DIR@@';

/**
 * The script the remote `sh -s` runs in step 2: makes the private folder,
 * writes the files from here-documents (quoted delimiters: the shell expands
 * nothing inside; each file ends with a newline, which the token's reader
 * trims), and prints the folder's path. A file that names the folder (the
 * discovery file) is written as its pieces with the folder between them, by
 * printf alone: no sed, whose `-i` differs between GNU and BSD and whose
 * pattern a TMPDIR with `#` or `&` would break. The path goes into JSON
 * strings, so one holding `"` or `\` is refused.
 */
export function setupScript(files: Record<string, string>): string {
  const lines = [
    'set -e',
    'umask 077',
    'd=$(mktemp -d "${TMPDIR:-/tmp}/ide-companion-ssh.XXXXXXXX")',
    'case "$d" in *\\"*|*\\\\*) echo "ide-companion ssh: the remote folder $d has a quote or a backslash in its path; set TMPDIR elsewhere" >&2; rm -rf "$d"; exit 1;; esac',
  ];
  for (const [name, content] of Object.entries(files)) {
    if (content.includes(REMOTE_DIR_PLACEHOLDER)) {
      const pieces = content.split(REMOTE_DIR_PLACEHOLDER).map((piece) => `printf '%s' ${shellQuote(piece)}`);
      lines.push(`{ ${pieces.join('; printf \'%s\' "$d"; ')}; } > "$d/${name}"`);
      continue;
    }
    let delimiter: string;
    do delimiter = `IDE_COMPANION_${randomBytes(8).toString('hex')}`;
    while (content.includes(delimiter));
    lines.push(`cat > "$d/${name}" <<'${delimiter}'`, content.endsWith('\n') ? content.slice(0, -1) : content, delimiter);
  }
  lines.push('echo "$d"');
  return lines.join('\n') + '\n';
}

/**
 * What the shell's remote command runs (step 3): the discovery file where
 * gemini looks, named with this script's PID (the login shell's, exec'd in
 * its place, and GEMINI_CLI_IDE_PID, so the CLI ranks it first), the
 * variables, the user's login shell, and the cleanup within a second of that
 * shell's end, by a clean exit or a dropped connection (a watcher: sh defers
 * a trap while its foreground child runs, and after a hang-up gemini under
 * the shell may run on).
 *
 * The remote may be shared: another user can make `$TMPDIR/gemini/ide`
 * before us (0777) and plant links named like our file. So each folder is
 * made 0700 or verified (a real folder, not a link, ours, writable by no one
 * else: `ls -ldn`, which every sh has, where test's -O is not POSIX), and
 * the file is written under a fresh name (mktemp: O_EXCL, 0600) then renamed,
 * which replaces a link instead of following it. Our files of earlier
 * sessions whose shell is gone (their watcher killed too) are swept there:
 * only ours are named with port 1 (a companion's names its real port), and
 * each session's shell runs on this machine, in this PID namespace, so a PID
 * gone here is a session gone. A folder refused is said,
 * and the shell goes on without the file (gemini there then does not find the
 * editor); the empty folders we made go with the cleanup.
 */
export function enterScript(plan: RemotePlan, cliRoot: string, dirVar = '$IDE_COMPANION_DIR'): string {
  const relative = plan.relative ? `/${plan.relative.split(path.sep).join('/')}` : '';
  return [
    '#!/bin/sh',
    '# ide-companion ssh: the shell whose gemini reaches the editor on the other end (docs/remote.md).',
    `d=${dirVar}`,
    'me=$(id -u)',
    '# A folder of ours alone: made here (0700), or a real folder owned by us that no one else can write.',
    'private_dir() {',
    '  [ -L "$1" ] && { why="$1 is a symbolic link"; return 1; }',
    '  [ -e "$1" ] || { mkdir -m 700 "$1" 2>/dev/null && made=1; }',
    '  set -- "$1" $(ls -ldn "$1" 2>/dev/null)',
    '  case "$2" in d????-??-*) ;; d*) why="$1 is writable by other users"; return 1;; *) why="$1 is not a folder"; return 1;; esac',
    '  [ "$4" = "$me" ] || { why="$1 belongs to another user (uid $4)"; return 1; }',
    '}',
    'top="${TMPDIR:-/tmp}/gemini"',
    'ide="$top/ide"',
    'f="$ide/gemini-ide-server-$$-1.json"',
    'written= t= made= made_top= made_ide=',
    '# Our file, then the folders we made if nothing else is in them (rmdir leaves a folder in use).',
    'cleanup() { [ -z "$written" ] || rm -f "$f"; [ -z "$made_ide" ] || rmdir "$ide" 2>/dev/null; [ -z "$made_top" ] || rmdir "$top" 2>/dev/null; rm -rf "$d"; }',
    "trap 'cleanup; exit 129' HUP",
    "trap 'cleanup; exit 143' TERM",
    'if private_dir "$top" && made_top=$made && made= && private_dir "$ide" && made_ide=$made; then',
    '  # Files of earlier sessions of ours (port 1) whose shell is gone (a session killed with its watcher): swept.',
    '  for g in "$ide"/gemini-ide-server-*-1.json; do',
    '    p=${g##*/gemini-ide-server-}; p=${p%-1.json}',
    '    case "$p" in \'\'|*[!0-9]*) continue;; esac',
    '    kill -0 "$p" 2>/dev/null || rm -f "$g"',
    '  done',
    '  t=$(umask 077; mktemp "$ide/.gemini-ide-server-$$.XXXXXXXX") && cat "$d/discovery.json" > "$t" && mv -f "$t" "$f" && written=1 ||',
    '    { [ -z "$t" ] || rm -f "$t"; echo "ide-companion ssh: cannot write $f: gemini here will not find the editor" >&2; }',
    'else',
    '  echo "ide-companion ssh: $why, so no discovery file goes there: gemini here will not find the editor (remove it, or set TMPDIR to a folder of yours)" >&2',
    'fi',
    `cd ${shellQuote(cliRoot + relative)} 2>/dev/null || cd ${shellQuote(cliRoot)} 2>/dev/null || echo ${shellQuote(`ide-companion ssh: ${cliRoot} is not here; gemini connects from inside it`)} >&2`,
    `export ${ENV.IDE_PID}=$$`,
    `export ${ENV.WORKSPACE_PATH}=${shellQuote(cliRoot)}`,
    // Said in the remote terminal: the editor's name as its discovery file gave it, cleaned.
    `echo ${shellQuote(cleanText(`ide-companion ssh: gemini here reaches ${plan.ideInfo.displayName} on the other end (folder ${cliRoot}).`))}`,
    '# The cleanup cannot wait here for the shell: sh runs a trap only once its foreground child ends, and after a',
    '# hang-up that child (gemini under the shell) may never end. So the login shell takes this PID and leads the',
    '# session, as in a plain ssh login: a hang-up ends it, and the kernel hangs up its foreground job. A watcher',
    '# off the terminal (deaf to its signals) cleans up once this PID is gone.',
    '( trap "" HUP INT QUIT TSTP; trap "cleanup; exit 143" TERM; while kill -0 $$ 2>/dev/null; do sleep 1; done; cleanup ) </dev/null >/dev/null 2>&1 &',
    'exec "${SHELL:-/bin/sh}" -l',
    '',
  ].join('\n');
}

function runSsh(args: string[], options: { input?: string; inherit?: boolean } = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('ssh', args, {
    input: options.input,
    stdio: options.inherit ? 'inherit' : ['pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: options.inherit ? undefined : 120_000,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

export const sshCommand: Command = {
  name: 'ssh',
  usage,
  run: (argv) =>
    runWithExitCodes('ssh', usage, async () => {
      const dash = argv.indexOf('--');
      const own = dash === -1 ? argv : argv.slice(0, dash);
      const sshOptions = dash === -1 ? [] : argv.slice(dash + 1);
      const { values, positionals } = parseCommandArgs(SSH_SPEC, own);
      if (positionals.length !== 1) throw new UsageError('give one [user@]host (ssh options after --)');
      const destination = positionals[0]!;
      const remotePath = values['remote-path'] as string | undefined;
      if (remotePath !== undefined && !path.posix.isAbsolute(remotePath))
        throw new UsageError(`--remote-path ${remotePath}: give an absolute path on the remote`);
      let plan: RemotePlan;
      try {
        plan = await planRemote(process.cwd());
      } catch (err) {
        if (!(err instanceof RemotePlanError)) throw err;
        printError('ssh', err.message);
        return EXIT.NO;
      }
      const cliRoot = remotePath ?? plan.hostRoot;
      const control = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-ssh-')), 'control');
      const mux = ['-o', `ControlPath=${control}`];
      try {
        // 1. One authentication, shared by the steps below.
        const master = runSsh([...sshOptions, ...mux, '-o', 'ControlMaster=yes', '-o', 'ControlPersist=yes', '-f', '-N', destination], { inherit: true });
        if (master.status !== 0) {
          printError('ssh', `could not connect to ${destination} (ssh exited ${master.status})`);
          return EXIT.ERROR;
        }
        // 2. The private folder and its files, through stdin.
        // Another machine's checkout: the agent writes its files there, so the relay sends each diff's base from there.
        const there = {
          cliRoot,
          relay: `${REMOTE_DIR_PLACEHOLDER}/${REMOTE.relay}`,
          socketPath: `${REMOTE_DIR_PLACEHOLDER}/${REMOTE.socket}`,
          remoteFiles: true,
        };
        const setup = runSsh([...sshOptions, ...mux, destination, 'sh', '-s'], {
          input: setupScript({
            [REMOTE.relay]: fs.readFileSync(plan.relay, 'utf8'),
            [REMOTE.discovery]: JSON.stringify(discoveryFileThere(plan, there)),
            [REMOTE.enter]: enterScript(plan, cliRoot),
          }),
        });
        const remoteDir = setup.stdout.trim().split('\n').at(-1) ?? '';
        if (setup.status !== 0 || !remoteDir.startsWith('/')) {
          printError('ssh', `could not prepare the remote folder: ${setup.stderr.trim() || `exit ${setup.status}`}`);
          return EXIT.ERROR;
        }
        // 3. The shell, the socket forwarded into the folder.
        const shell = spawn(
          'ssh',
          [
            ...sshOptions,
            ...mux,
            '-t',
            '-o',
            'ExitOnForwardFailure=yes',
            '-R',
            `${remoteDir}/${REMOTE.socket}:${plan.socketPath}`,
            destination,
            `IDE_COMPANION_DIR=${shellQuote(remoteDir)} exec sh ${shellQuote(`${remoteDir}/${REMOTE.enter}`)}`,
          ],
          { stdio: 'inherit' },
        );
        const code = await new Promise<number | null>((resolve) => shell.once('exit', (c) => resolve(c)));
        // The remote shell's own status is the user's business; ssh's 255 here, once connected, is the connection lost.
        if (code === 255 || code === null) {
          printError(
            'ssh',
            `the connection to ${destination} dropped (ssh exited ${code ?? 'on a signal'}; or it refused to forward the socket, as its message above says): run ide-companion ssh again to go on; a gemini there ended with it`,
          );
          return EXIT.LOST;
        }
        return EXIT.OK;
      } finally {
        runSsh([...mux, '-O', 'exit', destination]);
        fs.rmSync(path.dirname(control), { recursive: true, force: true });
      }
    }),
};
