/**
 * `ide-companion connect`'s options and exit codes. Its own module (the
 * command table includes it) so the bundled relay imports this, not the table.
 */
import type { CommandSpec } from '@ide-companion/command/commandSpec';

export const CONNECT_COMMAND_SPEC: CommandSpec = {
  name: 'connect',
  summary: 'relay MCP on stdio to a companion (for gemini in a container, its --sandbox or over SSH)',
  description: `A relay that Gemini CLI starts as its IDE server over stdio, for a CLI that
does not share the editor's machine or loopback: it forwards every message to
one companion through its Unix socket (mounted into a container, or carried
by ssh -R) or loopback TCP, and translates paths with --map.

The token comes from --token-file, else from the 'token' file beside the
socket, else from GEMINI_CLI_IDE_AUTH_TOKEN; never from an argument (ps shows
arguments). A socket or token file owned by another user is refused.
With --reconnect the socket is the stable per-user address (a workspace
socket, docs/remote.md): it needs no token, may not exist yet, and when the
companion behind it goes away the CLI keeps its session; the relay goes on
with the next companion there (tool calls meanwhile get an error saying so). Nothing
is written to stderr while the CLI runs it (it would draw over the CLI):
--log FILE says what happens. 'ide-companion container', 'sandbox' and 'ssh'
print or run it for you (docs/remote.md).`,
  options: {
    socket: { type: 'string', arg: 'PATH', help: "the companion's Unix socket (the discovery file's socketPath)" },
    port: { type: 'string', arg: 'P', help: "or the companion's loopback port (127.0.0.1)" },
    'token-file': { type: 'string', arg: 'F', help: "a file holding the token (default: 'token' beside the socket)" },
    map: {
      type: 'string',
      arg: 'HOST_ROOT=CLI_ROOT',
      multiple: true,
      help: "the editor's folder and where the CLI sees it (repeatable); paths outside every mapped folder are refused",
    },
    reconnect: {
      type: 'boolean',
      help: 'the socket is a workspace socket (the stable address): no token, and the CLI keeps its session while the editor restarts',
    },
    'remote-files': {
      type: 'boolean',
      help: "the CLI's files are not the editor's (an SSH remote's checkout): each diff's base is the file here, read by the relay",
    },
    log: { type: 'string', arg: 'FILE', help: 'append what happens to FILE (never the token or file contents)' },
  },
  exits: {
    0: 'the CLI closed stdin',
    1: 'the companion went away (without --reconnect)',
    2: 'usage error',
    3: 'could not start (no socket or token, or not ours)',
  },
};
