/**
 * `check` against deliberately broken companions (test/fixtures): the
 * defect-free fixture passes, and each single defect fails exactly the checks
 * named for it in fixtures/defects.ts: caught, and by nothing else.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { nonLoopbackAddresses, runCheck, type CheckReport } from '../src/check/index.js';
import { DEFECTS } from './fixtures/defects.js';
import { startMinimalCompanion, type CompanionBehaviour } from './fixtures/minimalCompanion.js';

// Generous for a slow machine; short enough that a hung request (sharedMcpServer) does not drag on.
const TIMEOUTS = { requestMs: 5_000 };

async function checkFixture(behaviour: Partial<CompanionBehaviour>): Promise<{ report: CheckReport; leftOpen: string[] }> {
  const fixture = await startMinimalCompanion(behaviour);
  try {
    const report = await runCheck({ file: fixture.discoveryFile, tmpdir: fixture.tmpdir, timeouts: TIMEOUTS });
    return { report, leftOpen: fixture.openDiffs() };
  } finally {
    await fixture.stop();
  }
}

function failing(report: CheckReport): string[] {
  return report.results
    .filter((r) => r.status === 'fail')
    .map((r) => r.id)
    .sort();
}

function reasons(report: CheckReport): string {
  return report.results
    .filter((r) => r.status === 'fail' || r.status === 'warn')
    .map((r) => `${r.status} ${r.id}: ${r.reason}`)
    .join('\n');
}

test("the fixture without defects passes every check (so each failure below is its defect's)", { timeout: 120_000 }, async () => {
  const { report, leftOpen } = await checkFixture({});
  assert.deepEqual(failing(report), [], reasons(report));
  assert.deepEqual(leftOpen, []);
});

// Issue 27: the fixture answers as the MCP SDK 1.32 does (its transport and McpServer), which JSON-RPC and MCP do not allow; check says so.
test(
  'the wire checks warn where the MCP SDK answers wrongly: -32700 for JSON that is no JSON-RPC, 202 for [], isError for an unknown tool, -32603 for bad params; a case-sensitive bearer',
  { timeout: 120_000 },
  async () => {
    const { report } = await checkFixture({});
    const status = (id: string) => report.results.find((r) => r.id === id);
    for (const id of ['session.invalidMessage', 'session.emptyBatch', 'session.unknownTool', 'session.toolCallParams', 'security.auth.schemeCase']) {
      assert.equal(status(id)?.status, 'warn', `${id}: ${status(id)?.reason}`);
    }
    assert.match(status('session.unknownTool')!.reason, /isError/);
    assert.match(status('session.toolCallParams')!.reason, /-32603/);
  },
);

const skipInterfaces = nonLoopbackAddresses().length === 0 ? 'this machine has no non-loopback address to probe: skipped' : false;

for (const [name, defect] of Object.entries(DEFECTS)) {
  const skip = name === 'boundToAllInterfaces' ? skipInterfaces : false;
  test(`defect ${name}: fails ${defect.failing.join(', ')}`, { timeout: 120_000, skip }, async () => {
    const { report, leftOpen } = await checkFixture(defect.behaviour);
    assert.deepEqual(failing(report), [...defect.failing].sort(), reasons(report));
    assert.deepEqual(leftOpen, [], 'check closes every diff it opened');
  });
}

test('MCP SDK 1.32 refuses to connect one McpServer to a second session, so sharedMcpServer simulates SDK 1.23', async () => {
  // If a future SDK accepts this again, the fixture should share a real McpServer instead of simulating it.
  const server = new McpServer({ name: 'shared', version: '0.0.0' });
  await server.connect(new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID }));
  await assert.rejects(server.connect(new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID })), /Already connected/);
  await server.close();
});
