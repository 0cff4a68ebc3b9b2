/**
 * `ide-companion mcp`'s options and exit codes. Its own module (the command
 * table includes it) so that the bundled server imports this, not the table,
 * which reaches every command and editor end.
 */
import type { CommandSpec } from '@ide-companion/command/commandSpec';

export const MCP_COMMAND_SPEC: CommandSpec = {
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
    cwd: { type: 'string', arg: 'DIR', help: 'the project folder whose editor to use (default: the current directory)' },
    'call-timeout': { type: 'string', arg: 'MS', help: 'bound on one tool call, in milliseconds (default 8000)' },
    retry: { type: 'string', arg: 'MS', help: 'longest wait between looks for an editor, in milliseconds (default 2000)' },
  },
  exits: { 0: 'the agent closed stdin (or SIGTERM, SIGINT, SIGHUP)', 2: 'usage error', 3: 'could not start' },
};
