/**
 * Every check `ide-companion check` runs: its id, what it verifies, where the
 * requirement comes from, and what a failure means for a user. docs/check.md
 * lists the same ids (a test keeps the two in step).
 */

export type CheckGroup = 'discovery' | 'transport' | 'security' | 'context' | 'diff' | 'session' | 'agents';

export interface CheckDefinition {
  id: string;
  group: CheckGroup;
  /** What is verified, in one line. */
  title: string;
  /** Where the requirement comes from. */
  source: string;
}

const SPEC = 'spec/ide-companion-spec.md';
const INTEROP = 'interop-notes.md';

export const CHECKS = [
  // Discovery file (spec §I.2 "Discovery mechanism: The port file").
  { id: 'discovery.name', group: 'discovery', title: 'file name is gemini-ide-server-PID-PORT.json', source: `${SPEC} §I.2 File naming convention` },
  { id: 'discovery.location', group: 'discovery', title: 'file lies in os.tmpdir()/gemini/ide', source: `${SPEC} §I.2 File location` },
  {
    id: 'discovery.schema',
    group: 'discovery',
    title: 'content is JSON with port, workspacePath and authToken',
    source: `${SPEC} §I.2 File content; protocol DiscoveryFileSchema`,
  },
  { id: 'discovery.port', group: 'discovery', title: 'port in the name equals port in the content', source: `${SPEC} §I.2 File naming convention (\${PORT})` },
  {
    id: 'discovery.ideInfo',
    group: 'discovery',
    title: 'ideInfo {name, displayName} is present',
    source: `${SPEC} §I.2 ideInfo (required); ${INTEROP} Finding the companion`,
  },
  { id: 'discovery.workspacePath', group: 'discovery', title: 'workspacePath holds absolute roots that exist', source: `${SPEC} §I.2 workspacePath` },
  {
    id: 'discovery.fileMode',
    group: 'discovery',
    title: 'file is a regular file, mode 0600, owned by you',
    source: `${INTEROP} Pitfalls (create it with mode 0600); Finding the companion (owned by the current uid)`,
  },
  {
    id: 'discovery.dirMode',
    group: 'discovery',
    title: 'directory is a real directory (not a link), 0700, owned by you',
    source: `${INTEROP} Pitfalls; ${SPEC} §I.2 File location`,
  },
  {
    id: 'discovery.pid',
    group: 'discovery',
    title: 'the PID in the name is a running process',
    source: `${SPEC} §I.2 (\${PID} of the IDE); ${INTEROP} Finding the companion (live PIDs first)`,
  },

  // Transport (spec §I.1, interop-notes "The session").
  { id: 'transport.reachable', group: 'transport', title: 'something listens on 127.0.0.1:PORT', source: `${SPEC} §I.1 Transport layer` },
  {
    id: 'transport.initialize',
    group: 'transport',
    title: 'MCP initialize over Streamable HTTP at /mcp with the token, as the real CLI sends it',
    source: `${SPEC} §I.1; ${INTEROP} The session`,
  },
  {
    id: 'transport.protocolVersion',
    group: 'transport',
    title: 'the negotiated protocol version is one the CLI (MCP SDK 1.23) accepts',
    source: `${INTEROP} The session (protocolVersion 2025-06-18)`,
  },
  {
    id: 'transport.getStream',
    group: 'transport',
    title: 'the standalone GET stream opens',
    source: `${INTEROP} The session (notifications travel on the GET stream)`,
  },
  {
    id: 'transport.diffTools',
    group: 'transport',
    title: 'tools/list names openDiff and closeDiff',
    source: `${SPEC} §III (MUST register); ${INTEROP} Diffs (diffing needs both)`,
  },
  {
    id: 'transport.getActiveFile',
    group: 'transport',
    title: 'tools/list names getActiveFile',
    source: 'spec/ide-integration-architecture.md (getActiveFile tool)',
  },
  {
    id: 'transport.toolSchemas',
    group: 'transport',
    title: 'openDiff/closeDiff input schemas take the arguments the CLI sends',
    source: `${SPEC} §III OpenDiffRequest, CloseDiffRequest; ${INTEROP} Diffs (suppressNotification)`,
  },

  // Security (spec §I.2 Authentication, interop-notes Pitfalls, MCP Streamable HTTP security warning).
  {
    id: 'security.auth.missing',
    group: 'security',
    title: 'no Authorization header: 401 on POST, GET and DELETE',
    source: `${SPEC} §I.2 Authentication (validate the token on every request)`,
  },
  {
    id: 'security.auth.wrong',
    group: 'security',
    title: 'a wrong bearer token: 401 on POST, GET and DELETE',
    source: `${SPEC} §I.2 Authentication; ${INTEROP} Pitfalls (token compared badly)`,
  },
  {
    id: 'security.auth.malformed',
    group: 'security',
    title: 'a malformed Authorization header: 401 on POST, GET and DELETE',
    source: `${SPEC} §I.2 Authentication (Authorization: Bearer <token>)`,
  },
  {
    id: 'security.auth.schemeCase',
    group: 'security',
    title: 'the bearer scheme is matched in any case: `bearer <token>` is accepted',
    source: 'RFC 7235 §2.1 (the auth-scheme is case-insensitive); RFC 6750',
  },
  {
    id: 'security.host',
    group: 'security',
    title: 'a foreign Host header is refused (DNS rebinding)',
    source: 'MCP 2025-06-18 transports, Streamable HTTP security warning',
  },
  {
    id: 'security.origin',
    group: 'security',
    title: 'any Origin header is refused (the CLI never sends one)',
    source: `MCP 2025-06-18 transports, Streamable HTTP security warning; ${INTEROP} The session (no Origin header)`,
  },
  {
    id: 'security.cors',
    group: 'security',
    title: 'no Access-Control-Allow-Origin: * (nor a reflected foreign origin)',
    source: `${INTEROP} Pitfalls (Access-Control-Allow-Origin: *)`,
  },
  {
    id: 'security.interfaces',
    group: 'security',
    title: "the port does not answer on this machine's non-loopback addresses",
    source: `${INTEROP} Pitfalls (servers bound to all interfaces); MCP transports (bind to localhost)`,
  },
  {
    id: 'security.tokenStrength',
    group: 'security',
    title: 'the token carries at least 128 bits',
    source: `${SPEC} §I.2 Authentication (a unique, secret token); ${INTEROP} Pitfalls (non-cryptographic tokens)`,
  },
  { id: 'security.bodyLimit', group: 'security', title: 'an 11 MiB openDiff is accepted', source: `${INTEROP} Pitfalls (a 10 MB request-body cap)` },

  // Context (spec §II).
  {
    id: 'context.firstUpdate',
    group: 'context',
    title: 'ide/contextUpdate arrives once the GET stream is open',
    source: `${SPEC} §II (MAY); ${INTEROP} The session (push once the GET stream is open)`,
  },
  {
    id: 'context.schema',
    group: 'context',
    title: "every ide/* notification passes the CLI's schema",
    source: `${SPEC} §II IdeContext, §III notifications; ${INTEROP} The session (a failing notification disconnects the CLI)`,
  },
  {
    id: 'context.limits',
    group: 'context',
    title: 'at most 10 open files, one active, selectedText <= 16 KiB, absolute paths',
    source: `${SPEC} §II How the CLI uses this context`,
  },

  // Diffs (spec §III, interop-notes Diffs).
  {
    id: 'diff.relativePath',
    group: 'diff',
    title: 'openDiff with a relative path answers isError with a text block',
    source: `${SPEC} §III openDiff (absolute path; On Failure)`,
  },
  { id: 'diff.open', group: 'diff', title: 'openDiff answers content: [] promptly', source: `${SPEC} §III openDiff (MUST immediately return, empty content)` },
  {
    id: 'diff.closeDiffJson',
    group: 'diff',
    title: 'closeDiff answers JSON {"content": ...} holding the proposal',
    source: `${INTEROP} Diffs (the CLI parses the text block as JSON); ${SPEC} §III closeDiff`,
  },
  {
    id: 'diff.closeDiffSilent',
    group: 'diff',
    title: 'closeDiff sends no ide/diffAccepted, ide/diffRejected or ide/diffClosed',
    source: `${INTEROP} Diffs (closeDiff {suppressNotification: true})`,
  },

  // Sessions and robustness.
  {
    id: 'session.isolation',
    group: 'session',
    title: "a second session does not hang the first one's tool calls",
    source: `${INTEROP} Pitfalls (one McpServer shared by every session)`,
  },
  {
    id: 'session.malformedJson',
    group: 'session',
    title: 'a body that is not JSON gets a clear 4xx JSON-RPC error',
    source: 'JSON-RPC 2.0 (-32700 Parse error); MCP transports',
  },
  {
    id: 'session.invalidMessage',
    group: 'session',
    title: 'JSON that is not a JSON-RPC message gets a clear 4xx error',
    source: 'JSON-RPC 2.0 (-32600 Invalid Request); MCP transports',
  },
  {
    id: 'session.emptyBatch',
    group: 'session',
    title: 'an empty batch `[]` gets a 4xx JSON-RPC -32600, not 202',
    source: 'JSON-RPC 2.0 §6 Batch (an empty Array: one Invalid Request error)',
  },
  {
    id: 'session.unknownTool',
    group: 'session',
    title: 'tools/call of a tool that does not exist gets JSON-RPC error -32602, not a result',
    source: 'MCP tools, Error Handling (unknown tools: a protocol error, -32602)',
  },
  {
    id: 'session.toolCallParams',
    group: 'session',
    title: 'tools/call without params, or with array arguments, gets -32602, not -32603',
    source: 'JSON-RPC 2.0 (-32602 Invalid params); MCP CallToolRequest (arguments: an object)',
  },
  {
    id: 'session.unknownSession',
    group: 'session',
    title: 'an unknown Mcp-Session-Id gets 404',
    source: 'MCP 2025-06-18 transports, Session Management (404 for unknown sessions)',
  },
  {
    id: 'session.stillAnswering',
    group: 'session',
    title: 'the first session still answers after all of the above',
    source: `${INTEROP} The session (the CLI does not reconnect by itself)`,
  },
  // Other agents' faces on the same companion (docs/agents.md): skipped when it does not serve them.
  {
    id: 'agents.qwen.lockFile',
    group: 'agents',
    title: "Qwen Code's lock file for this port: 0600 in a 0700 folder, the same port, a live ppid, ideInfo",
    source: 'Qwen Code companion spec (lock file); docs/agents.md (ideInfo)',
  },
  {
    id: 'agents.qwen.session',
    group: 'agents',
    title: "the lock file's token opens an MCP session that lists the diff tools",
    source: 'Qwen Code companion spec (the same tools as Gemini CLI)',
  },
  {
    id: 'agents.copilot.lockFile',
    group: 'agents',
    title: "Copilot CLI's lock file is private, names a live IDE, its folders, a socket and the headers to send",
    source: '@github/copilot 1.0.102 (cli-main.js: the lock file schema, the pid and socket checks)',
  },
  {
    id: 'agents.copilot.session',
    group: 'agents',
    title: "the lock file's socket and headers open an MCP session (http://localhost/mcp) that lists open_diff and close_diff",
    source: '@github/copilot 1.0.102 (StreamableHTTPClientTransport over the Unix socket)',
  },
  {
    id: 'agents.droid.lockFile',
    group: 'agents',
    title: "Factory Droid's lock file <ITS PORT>.lock naming this IDE: 0600 in a 0700 folder, a live pid, ideName, workspace folders",
    source: 'Factory Droid 0.225.2 (the IDE lock files it reads; docs/agents.md)',
  },
  {
    id: 'agents.droid.session',
    group: 'agents',
    title: "the lock file's port opens an MCP session (http://localhost:PORT/mcp, no token) listing openDiff and closeDiff, and nothing but Droid's four tools",
    source: 'Factory Droid 0.225.2 (its VS Code client: openDiff, closeDiff, openFile, getIdeDiagnostics)',
  },
  {
    id: 'agents.amp.lockFile',
    group: 'agents',
    title: "Amp's lock file <PORT>.json for this port: 0600 in a 0700 folder, the same port, a live pid, workspace folders, ideName",
    source: 'sourcegraph/amp.nvim lockfile.lua (the lock file Amp reads)',
  },
  {
    id: 'agents.amp.session',
    group: 'agents',
    title: "a WebSocket with ?auth=<the lock file's token> answers ping and authenticate under their ids",
    source: 'sourcegraph/amp.nvim server/init.lua (clientRequest / serverResponse)',
  },
  {
    id: 'agents.amp.refusals',
    group: 'agents',
    title: 'the Amp upgrade is refused with an empty or wrong token, with an Origin, and with a foreign Host',
    source: 'CVE-2025-52882 (Origin); amp.nvim handshake.lua (the auth query parameter)',
  },
  {
    id: 'agents.claude.lockFile',
    group: 'agents',
    title: "Claude Code's lock file for this port: 0600 in a 0700 folder, transport ws, a live pid, workspace folders",
    source: 'claudecode.nvim PROTOCOL.md (lock file)',
  },
  {
    id: 'agents.claude.session',
    group: 'agents',
    title: "a WebSocket with the lock file's token and subprotocol mcp initializes and lists Claude's tools (openDiff, close_tab)",
    source: 'claudecode.nvim PROTOCOL.md (transport, tools)',
  },
  {
    id: 'agents.claude.refusals',
    group: 'agents',
    title: 'the upgrade is refused without the token, with a wrong one, with an Origin, and with a foreign Host',
    source: 'CVE-2025-52882 (Origin); claudecode.nvim PROTOCOL.md (authentication)',
  },
  {
    id: 'agents.claude.handshake',
    group: 'agents',
    title: 'the upgrade is refused with a subprotocol other than mcp (none is opencode), and on a path other than /',
    source: 'RFC 6455 §4.2.2 (subprotocol); Claude Code 2.1.332 (dials ws://127.0.0.1:PORT with subprotocol mcp)',
  },
  {
    id: 'agents.claude.lifecycle',
    group: 'agents',
    title: 'a request before initialize and a second initialize get errors; nothing is notified before initialized',
    source: 'MCP lifecycle (initialization first, once)',
  },
  {
    id: 'agents.codex.ideContext',
    group: 'agents',
    title: "Codex CLI's IPC socket passes the CLI's checks and answers its ide-context for the companion's folder",
    source: '@openai/codex 0.171.0 (tui ide_context/ipc.rs: the socket checks, the frames, ide-context)',
  },
] as const satisfies readonly CheckDefinition[];

export type CheckId = (typeof CHECKS)[number]['id'];

const byId = new Map<string, CheckDefinition>(CHECKS.map((c) => [c.id, c]));

export function checkDefinition(id: CheckId): CheckDefinition {
  return byId.get(id)!;
}
