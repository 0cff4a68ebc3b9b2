/**
 * Issue 27: the companion echoed an agent-given path with its raw escapes in
 * its error texts ("openDiff refused PATH") and log lines: an OSC 52 in the
 * path reached the agent's terminal. A real MCP client against a real
 * companion, and the log writers.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { connectRecordingClient } from '@ide-companion/testkit';
import { startTestCompanion } from '../src/testing.js';
import { humanLogger, jsonLinesLogger } from '../src/logger.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';

test('an error text echoing a path with OSC 52 and CSI reaches the agent without them', { timeout: 30_000 }, async () => {
  const h = await startTestCompanion();
  const client = await connectRecordingClient({ port: h.companion.port, token: h.companion.authToken });
  try {
    // A path the companion refuses (relative), echoed in its refusal.
    const refused: any = await client.client.callTool({ name: 'openDiff', arguments: { filePath: `a${OSC52}\x9b2Jb.txt`, newContent: 'x\n' } });
    // The editor's own error message, passed on.
    h.view.failWith = `cannot show it${OSC52}\x1b[2J`;
    const failed: any = await client.client.callTool({ name: 'openDiff', arguments: { filePath: `${h.workspace}/b.txt`, newContent: 'x\n' } });
    for (const r of [refused, failed]) {
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.doesNotMatch(r.content[0].text, CONTROL);
    }
    assert.match(refused.content[0].text, /52;c;ZWNobyBwd25lZA==/);
    assert.match(failed.content[0].text, /cannot show it\]52;c;ZWNobyBwd25lZA==\[2J/);
  } finally {
    await client.close();
    await h.cleanup();
  }
});

test('log lines carry no control character: human lines and JSON lines (C1 is not escaped by JSON)', () => {
  const out = new PassThrough();
  let written = '';
  out.on('data', (c: Buffer) => (written += c.toString()));
  humanLogger(out).warn(`refused ${OSC52}`, { path: `/p/\x1b[2J\x9b` });
  jsonLinesLogger(out).warn(`refused ${OSC52}`, { path: `/p/\x9b2J` });
  for (const line of written.trimEnd().split('\n')) assert.doesNotMatch(line, CONTROL, line);
  assert.match(written, /refused \]52;c;ZWNobyBwd25lZA==/);
});
