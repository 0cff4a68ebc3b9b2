/**
 * Every command's options and exit codes, in one table: each command parses
 * its argv and prints its usage from here, `ide-companion --help` prints the
 * exit codes from here, and a test holds the README's table to it.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The exit codes every command shares. */
export const EXIT = {
  /** Yes: connected, accepted, would connect, nothing failed, found. */
  OK: 0,
  /** No: disconnected, rejected, would not connect, a check failed, none found. */
  NO: 1,
  /** A usage error: unknown option, missing or bad argument. */
  USAGE: 2,
  /** An error stopped the command before it had an answer (diff: no companion, diffs not offered, connection lost). */
  ERROR: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface OptionSpec {
  type: 'boolean' | 'string';
  /** The value's name in the usage (`MS`, `DIR`); string options only. */
  arg?: string;
  multiple?: boolean;
  help: string;
}

export interface CommandSpec {
  name: string;
  /** One line for `ide-companion --help`. */
  summary: string;
  /** Positional arguments, as the usage line shows them. */
  args?: string;
  /** What it does, in a paragraph or two. */
  description: string;
  options: Record<string, OptionSpec>;
  /** What each exit code means for this command. */
  exits: Partial<Record<ExitCode, string>>;
}

const json: OptionSpec = { type: 'boolean', help: 'print one JSON object' };
/** The options of the commands that connect as the CLI would (status, context, diff, doctor). */
const CONNECTING: Record<string, OptionSpec> = {
  json,
  cwd: { type: 'string', arg: 'DIR', help: 'act as if run in DIR (default: the current directory)' },
  timeout: { type: 'string', arg: 'MS', help: 'connection timeout in milliseconds (default 10000)' },
};
const USAGE_ERROR = 'usage error';

export const COMMAND_TABLE: readonly CommandSpec[] = [
  {
    name: 'serve',
    summary: 'run a companion for this folder; review diffs in this terminal',
    description: `Runs a Gemini CLI companion for DIR (default: the current folder; repeat
--workspace for several roots). Start 'gemini' in that folder from any other
terminal and it connects here: files you save become its context, and each
edit it proposes is shown here as a diff to accept, reject, or edit in
$VISUAL/$EDITOR first.`,
    options: {
      workspace: { type: 'string', arg: 'DIR', multiple: true, help: 'a workspace root (repeatable)' },
      json: { type: 'boolean', help: 'log events as JSON lines on stdout (the review goes to stderr)' },
      'no-color': { type: 'boolean', help: 'plain output (also when NO_COLOR is set)' },
    },
    exits: { 0: 'stopped by SIGTERM or SIGHUP', 2: USAGE_ERROR, 3: 'could not start (workspace missing, port or discovery file refused)' },
  },
  {
    name: 'status',
    summary: 'show what /ide status would show here, and which companion was chosen',
    description: `Connects the way Gemini CLI would from this folder and prints what /ide status
shows (Connected to <IDE> with the open files, or Disconnected and why), plus
the companion chosen and the reason. In a container where gemini would dial
host.docker.internal, it says what to export.`,
    options: CONNECTING,
    exits: { 0: 'connected', 1: 'disconnected', 2: USAGE_ERROR },
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    name: 'doctor',
    summary: 'explain whether gemini started here would connect, and why not',
    description: `Explains whether Gemini CLI started in this folder would connect to an IDE
companion, and what to do if not: discovery files and their owners, stale
files, the workspace match (with every root), the token, IDE detection,
container host mapping, and a real connection attempt.`,
    options: CONNECTING,
    exits: { 0: 'gemini would connect', 1: 'it would not', 2: USAGE_ERROR },
  },
  {
    name: 'list',
    summary: 'list every companion on this machine (IDE, PID, port, workspace, liveness)',
    description: `Lists every IDE companion on this machine from its discovery file: the IDE,
its PID, port, workspace, and whether it is alive (PID running and port
accepting connections). '*' marks the one Gemini CLI would use from this folder.`,
    options: {
      json: { type: 'boolean', help: 'print a JSON array' },
      cwd: { type: 'string', arg: 'DIR', help: "the folder for the '*' mark (default: the current directory)" },
    },
    exits: { 0: 'at least one companion listed', 1: 'none found', 2: USAGE_ERROR },
  },
  {
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
  },
  {
    name: 'mcp',
    summary: "the connected editor's diagnostics, open files and navigation as MCP tools (stdio)",
    description: `An MCP server on stdin/stdout for any agent (Gemini CLI, Claude Code, Codex...):
it finds the editor companion Gemini CLI would use from this folder (as
'status' does), and offers that editor's tools: getDiagnostics, getOpenEditors,
getSelection, openFile, getWorkspaceFolders, checkDocumentDirty, saveDocument,
each as far as the editor supports it. The list follows the editor (tools/
list_changed) as it starts, restarts or stops. With no editor, every tool is
listed and each call answers an error saying why (docs/mcp.md).`,
    options: {
      cwd: { type: 'string', arg: 'DIR', help: "the project folder whose editor to use (default: the current directory)" },
      'call-timeout': { type: 'string', arg: 'MS', help: 'bound on one tool call, in milliseconds (default 8000)' },
      retry: { type: 'string', arg: 'MS', help: 'longest wait between looks for an editor, in milliseconds (default 2000)' },
    },
    exits: { 0: 'the agent closed stdin (or SIGTERM, SIGINT, SIGHUP)', 2: USAGE_ERROR, 3: 'could not start' },
  },
  {
    name: 'bridge',
    summary: 'companion host for script-based editor plugins (JSON lines on stdio)',
    description: `Runs a companion whose editor end is a script speaking line-delimited JSON on
this process's stdin/stdout (docs/editor-protocol.md). The script's first line
is {"type":"hello",...}; its fields override these options. Logs go to stderr.
Ends when stdin closes.`,
    options: {
      name: { type: 'string', arg: 'NAME', help: 'ideInfo.name, short and lowercase (e.g. vim)' },
      'display-name': { type: 'string', arg: 'NAME', help: 'what /ide status shows (e.g. Vim)' },
      'ide-pid': { type: 'string', arg: 'PID', help: "the editor's PID (default: this command's parent)" },
      workspace: { type: 'string', arg: 'DIR', multiple: true, help: 'a workspace root (repeatable; default: the current folder)' },
    },
    exits: { 0: 'stdin closed, companion stopped', 2: USAGE_ERROR, 3: 'could not start' },
  },
];

export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_TABLE.find((c) => c.name === name);
  if (!spec) throw new Error(`no command ${name} in the command table`);
  return spec;
}

function optionLabel(name: string, o: OptionSpec): string {
  return `--${name}${o.arg ? ` ${o.arg}` : ''}`;
}

/** `ide-companion help NAME` and `NAME --help`. */
export function usageOf(spec: CommandSpec): string {
  const synopsis = [spec.args, ...Object.entries(spec.options).map(([n, o]) => `[${optionLabel(n, o)}]${o.multiple ? '...' : ''}`)].filter(Boolean).join(' ');
  const labels = Object.entries(spec.options).map(([n, o]) => [optionLabel(n, o), o.help] as const);
  const width = Math.max(...labels.map(([l]) => l.length));
  const exits = Object.entries(spec.exits).map(([code, meaning]) => `  ${code}  ${meaning}`);
  return [
    `Usage: ide-companion ${spec.name} ${synopsis}`,
    '',
    spec.description,
    '',
    'Options:',
    ...labels.map(([l, help]) => `  ${l.padEnd(width)}  ${help}`),
    '',
    'Exit status:',
    ...exits,
    '',
  ].join('\n');
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses argv with the command's options from the table; anything unexpected is a UsageError. */
export function parseCommandArgs(
  spec: CommandSpec,
  argv: string[],
): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries(spec.options)) options[name] = o.multiple ? { type: o.type, multiple: true } : { type: o.type };
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: spec.args !== undefined, strict: true });
    return { values: r.values as Record<string, string | boolean | string[] | undefined>, positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The README's exit-code table (a test keeps the README equal to it). */
export function exitCodeMarkdown(): string {
  const cell = (c: CommandSpec, code: ExitCode) => c.exits[code] ?? '';
  return [
    '| command | 0 | 1 | 2 | 3 |',
    '| --- | --- | --- | --- | --- |',
    ...COMMAND_TABLE.map((c) => `| \`${c.name}\` | ${cell(c, 0)} | ${cell(c, 1)} | ${cell(c, 2)} | ${cell(c, 3)} |`),
  ].join('\n');
}

/** The exit codes of every command, as `--help` shows them. */
export function exitCodeTable(): string {
  const rows = COMMAND_TABLE.map(
    (c) =>
      `  ${c.name.padEnd(8)}  ${Object.entries(c.exits)
        .map(([code, m]) => `${code} ${m}`)
        .join('; ')}`,
  );
  return ['Exit status (all commands: 0 yes, 1 no, 2 usage error, 3 error; Ctrl-C ends serve and check with 130):', ...rows].join('\n');
}
