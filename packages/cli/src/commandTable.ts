/**
 * Every command's options and exit codes, in one table: the specs of this
 * package's commands are here, the editor ends' (`serve`, `bridge`) come with
 * their commands through the registry. Each command parses its argv and prints
 * its usage from its spec, `ide-companion --help` prints the exit codes from
 * the table, and a test holds the README's table to it.
 */
import type { CommandSpec, ExitCode, OptionSpec } from '@ide-companion/command/commandSpec';
import { CONNECT_COMMAND_SPEC } from './connect/commandSpec.js';
import { MCP_COMMAND_SPEC } from './mcp/commandSpec.js';

export { EXIT, UsageError, parseCommandArgs, usageOf, type CommandSpec, type ExitCode } from '@ide-companion/command/commandSpec';

const json: OptionSpec = { type: 'boolean', help: 'print one JSON object' };
/** The options of the commands that connect as the CLI would (status, context, diff, doctor). */
const CONNECTING: Record<string, OptionSpec> = {
  json,
  cwd: { type: 'string', arg: 'DIR', help: 'act as if run in DIR (default: the current directory)' },
  timeout: { type: 'string', arg: 'MS', help: 'connection timeout in milliseconds (default 10000)' },
};
const USAGE_ERROR = 'usage error';

// One constant per command: each command's file imports its own spec and nothing of the others'.
export const STATUS_SPEC: CommandSpec = {
  name: 'status',
  summary: 'show what /ide status would show here, and which companion was chosen',
  description: `Connects the way Gemini CLI would from this folder and prints what /ide status
shows (Connected to <IDE> with the open files, or Disconnected and why), plus
the companion chosen and the reason. In a container where gemini would dial
host.docker.internal, it says what to export.`,
  options: CONNECTING,
  exits: { 0: 'connected', 1: 'disconnected', 2: USAGE_ERROR },
};

export const CONTEXT_SPEC: CommandSpec = {
  name: 'context',
  summary: 'print the IDE context the CLI would send the model (--watch for live)',
  description: `Connects to the companion Gemini CLI would use from this folder and prints the
IDE context as the model receives it (a JSON object, normalised as the CLI
does: newest file first, only it active, at most 10 files, long selections cut).`,
  options: {
    watch: { type: 'boolean', help: 'keep running and print every change (reconnects by itself); with --json, one JSON object per line' },
    ...CONNECTING,
  },
  exits: { 0: 'printed a context (--watch: interrupted)', 1: 'no connection, or no context arrived', 2: USAGE_ERROR },
};

export const DIFF_SPEC: CommandSpec = {
  name: 'diff',
  summary: 'open a diff in the connected IDE; exit 0 on accept, 1 on reject',
  args: 'FILE [NEWFILE|-]',
  description: `Opens a diff of FILE against the proposed content in the IDE that Gemini CLI
would use from this folder, and waits for the user to accept or reject it.
The proposal comes from NEWFILE, or from stdin with '-' (the default when
stdin is not a terminal); with neither, FILE's own content (edit it in the IDE).

On accept, prints the final content (with any edits made in the diff view) to
stdout; FILE itself is written only with --write. Ctrl-C (or SIGTERM,
SIGHUP) closes the diff in the IDE and counts as a rejection.`,
  options: {
    write: { type: 'boolean', help: 'write the accepted content to FILE' },
    ...CONNECTING,
  },
  exits: { 0: 'accepted', 1: 'rejected (or interrupted)', 2: USAGE_ERROR, 3: 'no answer: no companion, diffs not offered, or the connection was lost' },
};

export const CHECK_SPEC: CommandSpec = {
  name: 'check',
  summary: 'check a running companion against the spec and the real CLI',
  description: `Runs the conformance suite against a running Gemini CLI companion (ours or
any other: the VS Code extension, community plugins) and reports each
requirement as pass, fail, warn or skip with a one-line reason.

Without options it checks the companion the Gemini CLI would choose for the
current directory. It first says so, then opens and closes a few test diffs
there, of files in a fresh temporary directory (--no-diffs skips them); it
never touches your files.`,
  options: {
    port: { type: 'string', arg: 'P', help: "the companion's port (with --token; the token is also read from a discovery file naming that port)" },
    token: { type: 'string', arg: 'T', help: 'its bearer token' },
    file: { type: 'string', arg: 'F', help: 'a discovery file: checked, and port and token taken from it' },
    'no-diffs': { type: 'boolean', help: 'open no test diffs in the editor (the diff checks are skipped)' },
    json: { type: 'boolean', help: 'print the report as JSON' },
    timeout: { type: 'string', arg: 'MS', help: 'time allowed for each request (default 10000)' },
  },
  exits: { 0: 'nothing failed (warnings allowed)', 1: 'something failed', 2: 'usage error, or nothing answers on the port' },
};

export const DOCTOR_SPEC: CommandSpec = {
  name: 'doctor',
  summary: 'explain whether gemini started here would connect, and why not',
  description: `Explains whether Gemini CLI started in this folder would connect to an IDE
companion, and what to do if not: discovery files and their owners, stale
files, the workspace match (with every root), the token, IDE detection,
container host mapping, and a real connection attempt.`,
  options: CONNECTING,
  exits: { 0: 'gemini would connect', 1: 'it would not', 2: USAGE_ERROR },
};

export const LIST_SPEC: CommandSpec = {
  name: 'list',
  summary: 'list every companion on this machine (IDE, PID, port, liveness, agents, workspace)',
  description: `Lists every IDE companion on this machine from its discovery file: the IDE,
its PID, port, workspace, and whether it is alive (PID running and port
accepting connections). '*' marks the one Gemini CLI would use from this folder.`,
  options: {
    json: { type: 'boolean', help: 'print a JSON array' },
    cwd: { type: 'string', arg: 'DIR', help: "the folder for the '*' mark (default: the current directory)" },
  },
  exits: { 0: 'at least one companion listed', 1: 'none found', 2: USAGE_ERROR },
};

export const INSTALL_SPEC: CommandSpec = {
  name: 'install',
  summary: 'install the companion for an editor (lists installers without EDITOR)',
  args: '[EDITOR]',
  description: `Installs the IDE companion for EDITOR. Without EDITOR, lists the installers
available and the editor this terminal seems to run in.`,
  options: {
    'dry-run': { type: 'boolean', help: 'say what would be done, change nothing' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  exits: { 0: 'installed (or listed)', 1: 'the installer failed', 2: 'usage error or unknown editor', 3: 'the installer could not run' },
};

export const UNINSTALL_SPEC: CommandSpec = {
  name: 'uninstall',
  summary: 'remove what install put into an editor',
  args: 'EDITOR',
  description: `Removes what 'ide-companion install EDITOR' installed: the plugin folder it
wrote (a folder it did not write is left alone), the VS Code extension from
every VS Code-family editor on PATH, or the Gemini CLI extension. Run it
before 'npm uninstall -g ide-companion' to leave nothing behind.`,
  options: {
    'dry-run': { type: 'boolean', help: 'say what would be removed, change nothing' },
    json: { type: 'boolean', help: 'print JSON' },
  },
  exits: { 0: 'removed (or nothing was installed)', 1: 'could not remove it', 2: 'usage error or unknown editor', 3: 'the uninstaller could not run' },
};

export const CONTAINER_SPEC: CommandSpec = {
  name: 'container',
  summary: 'print the podman/docker run options that let gemini in a container reach this editor',
  description: `Run in the project (with its editor running, or before). Prints, as one line
of shell words, the options to add to your own 'podman run' or 'docker run'
so that gemini inside reaches the editor here, with no network needed:

  podman run --rm -it $(ide-companion container --podman) IMAGE gemini

The project is mounted at --at (default /workspaces/NAME) and the working
folder follows this one; the stable address's folder (one socket per
project, served by whichever editor runs it now, with the relay's copy) and
its folder of discovery files are mounted read-only. Nothing in them names
one run of the editor: a container made once keeps working across editor
restarts. The image needs Node and gemini. docs/remote.md.`,
  options: {
    podman: { type: 'boolean', help: 'for podman run' },
    docker: { type: 'boolean', help: 'for docker run (adds --user with your uid and gid)' },
    at: { type: 'string', arg: 'PATH', help: 'where the project is mounted in the container (default /workspaces/NAME)' },
    json: { type: 'boolean', help: 'print the options and what they point at as JSON' },
  },
  exits: { 0: 'printed the options', 1: 'the address cannot be made', 2: USAGE_ERROR },
};

export const SANDBOX_SPEC: CommandSpec = {
  name: 'sandbox',
  summary: "print the exports that let gemini's own sandbox reach this editor",
  description: `Run in the project (with its editor running, or before). Prints the export
lines that make gemini's sandbox (Docker or Podman) reach the editor here:
SANDBOX_MOUNTS with the stable address's folder, the relay and a discovery
file where gemini looks in the sandbox, which mounts the project at the same
path; GEMINI_SANDBOX with the runtime (--sandbox would pick docker over it);
and with a Podman before 5, PATH with a podman that drops the host-gateway
option it refuses. Each value is whole: running it again in the same shell
adds nothing twice. Use them as:

  eval "$(ide-companion sandbox)" && gemini

docs/remote.md.`,
  options: {
    podman: { type: 'boolean', help: 'run the sandbox with podman (default: GEMINI_SANDBOX if set, else docker if installed, else podman)' },
    docker: { type: 'boolean', help: 'run the sandbox with docker' },
    json: { type: 'boolean', help: 'print the variables as JSON' },
  },
  exits: { 0: 'printed the exports', 1: 'no runtime, or the address cannot be made', 2: USAGE_ERROR },
};

export const SSH_SPEC: CommandSpec = {
  name: 'ssh',
  summary: 'open your shell on a remote where gemini reaches this editor (the socket forwarded)',
  args: '[USER@]HOST',
  // Everything after -- goes to ssh, so --remote-path comes before it.
  argsLast: '[-- SSH_OPTIONS]',
  description: `Run in the project, with its editor's companion running. Opens your login shell
on HOST, where 'gemini' started in the project reaches the editor here: the
companion's socket is forwarded (ssh -R of a Unix socket; the server needs
AllowStreamLocalForwarding, on by default): the project's socket at the
stable address, so the shell outlives editor restarts. The relay and a
discovery file go to a private folder there, through ssh's stdin; no token
leaves this machine. Paths map from this project to --remote-path. One
authentication (the steps share a ControlMaster); everything on the remote is
removed when the shell ends. The remote needs Node (gemini does).

  ide-companion ssh me@devbox --remote-path /home/me/proj -- -p 2222

docs/remote.md.`,
  options: {
    'remote-path': { type: 'string', arg: 'DIR', help: 'where the project is on the remote (default: the same path as here)' },
  },
  exits: {
    0: 'the remote shell ended',
    1: 'no companion with a socket serves this folder',
    2: USAGE_ERROR,
    3: 'ssh could not connect, or the remote folder could not be made',
    4: "the connection dropped under the remote shell (or ssh refused to forward the socket: ssh's message says which)",
  },
};

export const AGENT_SPEC: CommandSpec = {
  name: 'agent',
  summary: 'run an ACP agent (gemini --acp, claude-agent-acp, ...) in this terminal, with your editor as its IDE',
  argsLast: '[--] COMMAND [ARGS...]',
  description: `Starts COMMAND as an Agent Client Protocol agent and talks to it here, in
plain lines: its messages streamed, tool calls and plans on lines of their
own, a prompt line with history. Toward the editor it is a CLI with IDE mode:
it connects to the companion of the editor this terminal runs in (or that
'serve' runs for this folder), sends the editor's context (active file,
cursor, selection) with each prompt, and opens the agent's writes as diffs in
the editor: a file is written only on accept, with your edits. Without an
editor, writes are asked here. Reads and writes outside the folder are refused.

At the prompt: /ide status, /cancel (or Ctrl-C: cancels the running turn),
/quit (or Ctrl-C twice, or end of input). --list names the ACP agents found
on PATH. docs/acp.md.

  ide-companion agent -- gemini --acp`,
  options: {
    list: { type: 'boolean', help: 'list the known ACP agents and which are on PATH' },
    cwd: { type: 'string', arg: 'DIR', help: "the session's folder and workspace (default: the current directory)" },
    timeout: { type: 'string', arg: 'MS', help: 'how long the agent has to start, and the editor to answer (default 60000)' },
    'no-ide': { type: 'boolean', help: 'do not connect to an editor (writes are asked in the terminal)' },
  },
  exits: { 0: 'ended by the user (--list: an agent found)', 1: '--list: none found', 2: USAGE_ERROR, 3: 'the agent could not start, or exited' },
};

/** The specs of this package's own commands. */
export const OWN_COMMANDS: readonly CommandSpec[] = [
  STATUS_SPEC,
  CONTEXT_SPEC,
  DIFF_SPEC,
  CHECK_SPEC,
  DOCTOR_SPEC,
  LIST_SPEC,
  INSTALL_SPEC,
  UNINSTALL_SPEC,
  MCP_COMMAND_SPEC,
  CONNECT_COMMAND_SPEC,
  CONTAINER_SPEC,
  SANDBOX_SPEC,
  SSH_SPEC,
  AGENT_SPEC,
];

export function commandSpec(name: string): CommandSpec {
  const spec = OWN_COMMANDS.find((c) => c.name === name);
  if (!spec) throw new Error(`no command ${name} in the command table`);
  return spec;
}

/** The README's exit-code table (a test keeps the README equal to it). */
export function exitCodeMarkdown(table: readonly CommandSpec[]): string {
  const cell = (c: CommandSpec, code: ExitCode) => c.exits[code] ?? '';
  return [
    '| command | 0 | 1 | 2 | 3 | 4 |',
    '| --- | --- | --- | --- | --- | --- |',
    ...table.map((c) => `| \`${c.name}\` | ${cell(c, 0)} | ${cell(c, 1)} | ${cell(c, 2)} | ${cell(c, 3)} | ${cell(c, 4)} |`),
  ].join('\n');
}

/** The exit codes of every command, as `--help` shows them: one column, as wide as the longest name. */
export function exitCodeTable(table: readonly CommandSpec[]): string {
  const width = Math.max(...table.map((c) => c.name.length));
  const rows = table.map(
    (c) =>
      `  ${c.name.padEnd(width)}  ${Object.entries(c.exits)
        .map(([code, m]) => `${code} ${m}`)
        .join('; ')}`,
  );
  return ['Exit status (all commands: 0 yes, 1 no, 2 usage error, 3 error; Ctrl-C ends serve and check with 130):', ...rows].join('\n');
}

/**
 * The candidate a user most likely meant by `word` (`instal`, `unistall`,
 * `neovin`): the closest within two edits, a prefix of three letters or more,
 * or none, so a "did you mean" is only offered for a near miss.
 */
export function nearestName(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const n = name.toLowerCase();
    const distance = w.length >= 3 && n.startsWith(w) ? 1 : editDistance(w, n);
    if (distance <= Math.min(2, Math.floor(n.length / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance, short words only (names typed by a user: bounded by the caller's 100 characters). */
function editDistance(a: string, b: string): number {
  if (a.length > 100 || b.length > 100) return Infinity;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[b.length]!;
}
