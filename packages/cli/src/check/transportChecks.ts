/** Transport: reachable, initialize as the CLI does, the GET stream, the tools (spec §I.1, §III; interop-notes The session). */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { HTTP_CLIENT_NAME } from '@ide-companion/client/transport';
import { CloseDiffTool, GetActiveFileTool, LOOPBACK_HOST, OpenDiffTool } from '@ide-companion/protocol';
import type { CheckRun } from './checkRun.js';
import { ConnectError, describeCallError, type CliLikeSession } from './cliLikeSession.js';
import { canConnect } from './rawHttp.js';
import { CLI_PROTOCOL_VERSION } from './rawSession.js';

/** Protocol versions the CLI's MCP SDK (1.23, in Gemini CLI 0.61) accepts from a server. */
const CLI_SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export interface TransportOutcome {
  reachable: boolean;
  /** The CLI-like session, when initialize worked. */
  session?: CliLikeSession;
  /** tools/list named both openDiff and closeDiff. */
  diffTools: boolean;
}

export async function checkTransport(run: CheckRun): Promise<TransportOutcome> {
  const { record, target, timeouts } = run;
  const tcp = await canConnect(LOOPBACK_HOST, target.port, timeouts.connectMs);
  if (!tcp.connected) {
    record.fail('transport.reachable', `nothing answers on ${LOOPBACK_HOST}:${target.port} (${tcp.detail})`);
    return { reachable: false, diffTools: false };
  }
  record.pass('transport.reachable', `${LOOPBACK_HOST}:${target.port} accepts connections`);

  let session: CliLikeSession;
  try {
    session = await run.openSession('A');
  } catch (err) {
    const status = err instanceof ConnectError ? err.status : undefined;
    const hint =
      status === 401 ? (target.tokenFrom === 'option' ? ' (is --token right?)' : ': the companion refuses the token from its own discovery file') : '';
    record.fail('transport.initialize', `initialize failed: ${(err as Error).message}${hint}`);
    return { reachable: true, diffTools: false };
  }
  record.pass('transport.initialize', `initialize as ${HTTP_CLIENT_NAME} with protocolVersion ${CLI_PROTOCOL_VERSION} worked`);

  const version = session.negotiatedVersion;
  if (version === CLI_PROTOCOL_VERSION) record.pass('transport.protocolVersion', `answered ${version}`);
  else if (version && CLI_SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    record.warn('transport.protocolVersion', `answered ${version}; the CLI asks for ${CLI_PROTOCOL_VERSION}`);
  else record.fail('transport.protocolVersion', `answered ${version ?? 'no version'}, which the CLI's MCP SDK rejects`);

  if (await session.waitForStream(timeouts.contextMs)) {
    record.pass('transport.getStream', 'GET /mcp answered 200 text/event-stream');
  } else {
    const get = session.wire.find((w) => w.method === 'GET');
    record.fail(
      'transport.getStream',
      get
        ? `GET /mcp answered HTTP ${get.status} ${get.contentType}: notifications (context, diff outcomes) can never reach the CLI`
        : `no GET stream within ${timeouts.contextMs} ms: notifications can never reach the CLI`,
    );
  }

  let tools: Tool[];
  try {
    tools = (await session.client.listTools(undefined, { timeout: timeouts.requestMs })).tools;
  } catch (err) {
    record.fail('transport.diffTools', `tools/list failed: ${describeCallError(err)}`);
    record.skip('transport.getActiveFile', 'tools/list failed');
    record.skip('transport.toolSchemas', 'tools/list failed');
    return { reachable: true, session, diffTools: false };
  }
  const names = tools.map((t) => t.name);
  const missing = [OpenDiffTool.name, CloseDiffTool.name].filter((n) => !names.includes(n));
  if (missing.length === 0) record.pass('transport.diffTools', `tools: ${names.join(', ')}`);
  else record.fail('transport.diffTools', `missing ${missing.join(' and ')} (tools: ${names.join(', ') || 'none'}): the CLI turns diffing off`);
  if (names.includes(GetActiveFileTool.name)) record.pass('transport.getActiveFile', 'listed');
  else record.warn('transport.getActiveFile', 'not listed: the real CLI does not call it, other agents may');
  checkToolSchemas(tools, run);
  return { reachable: true, session, diffTools: missing.length === 0 };
}

type JsonSchema = { type?: unknown; properties?: Record<string, { type?: unknown }>; required?: unknown; additionalProperties?: unknown };

function checkToolSchemas(tools: Tool[], run: CheckRun): void {
  const problems: string[] = [];
  const warnings: string[] = [];
  const expect = (toolName: string, props: string[]) => {
    const tool = tools.find((t) => t.name === toolName);
    if (!tool) return;
    const schema = tool.inputSchema as JsonSchema;
    if (schema.type !== 'object') problems.push(`${toolName}: input schema type is ${JSON.stringify(schema.type)}, not "object"`);
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const prop of props) {
      const type = schema.properties?.[prop]?.type;
      if (type !== 'string') problems.push(`${toolName}.${prop} is ${type === undefined ? 'missing' : `of type ${JSON.stringify(type)}`}`);
      else if (!required.includes(prop)) warnings.push(`${toolName}.${prop} is not required`);
    }
    if (toolName === CloseDiffTool.name && schema.additionalProperties === false && !schema.properties?.['suppressNotification']) {
      warnings.push('closeDiff refuses extra properties but does not list suppressNotification, which the CLI sends');
    }
  };
  expect(OpenDiffTool.name, ['filePath', 'newContent']);
  expect(CloseDiffTool.name, ['filePath']);
  if (!tools.some((t) => t.name === OpenDiffTool.name || t.name === CloseDiffTool.name)) {
    run.record.skip('transport.toolSchemas', 'no diff tools listed');
  } else if (problems.length > 0) run.record.fail('transport.toolSchemas', problems.join('; '));
  else if (warnings.length > 0) run.record.warn('transport.toolSchemas', warnings.join('; '));
  else run.record.pass('transport.toolSchemas', 'openDiff {filePath, newContent} and closeDiff {filePath}: strings, required');
}
