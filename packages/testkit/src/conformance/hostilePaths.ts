/**
 * Hostile paths (issue 27 item 1) against every end that opens files for an
 * agent: a FIFO in the workspace given to openFile froze an editor reading
 * it, and a link swapped in while the editor opened the file showed the user
 * another file. The companion checks what a path is before the editor sees
 * it, and checks again after the open, having the editor close what it
 * opened. Written once here; each end's driver says how a racing process
 * swaps the file at the worst moment (`swapOnOpen`).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectRecordingClient } from '../mcpClient.js';
import { resultText } from './faces.js';
import type { Scenario, ScenarioContext } from './scenarios.js';
import { OpenFileTool } from '@ide-companion/protocol';

async function capabilityClient(ctx: ScenarioContext) {
  const { content } = await ctx.session.discovery();
  const c = await connectRecordingClient({ port: content.port, token: content.authToken });
  ctx.defer(() => c.close());
  return c;
}

const openFile = async (c: Awaited<ReturnType<typeof capabilityClient>>, file: string) =>
  (await c.client.callTool({ name: OpenFileTool.name, arguments: { path: file } })) as { isError?: boolean; content: Array<{ type: string; text?: string }> };

export const HOSTILE_PATH_SCENARIOS: readonly Scenario[] = [
  {
    name: 'hostile paths: openFile on a FIFO in the workspace is refused at once, and the end still answers and opens the next file',
    needs: ['capabilityTools'],
    files: { 'hostile-next.txt': 'one\ntwo\n' },
    async run(ctx) {
      const c = await capabilityClient(ctx);
      const fifo = ctx.file('hostile-pipe');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      ctx.defer(() => fs.rmSync(fifo, { force: true }));
      const started = performance.now();
      const r = await openFile(c, fifo);
      assert.equal(r.isError, true, resultText(r));
      assert.match(resultText(r), /a FIFO, not a regular file/);
      assert.ok(performance.now() - started < 2000, `refused in ${Math.round(performance.now() - started)} ms`);
      const answered = performance.now();
      await ctx.session.ping();
      assert.ok(performance.now() - answered < 2000, 'the end answers at once');
      const next = await openFile(c, ctx.file('hostile-next.txt'));
      assert.notEqual(next.isError, true, resultText(next));
    },
  },
  {
    name: 'hostile paths: a link swapped in while the end opens the file: openFile is refused and the end closes what it opened',
    needs: ['capabilityTools', 'swapOnOpen'],
    files: { 'hostile-swap.txt': 'mine\n' },
    async run(ctx) {
      const c = await capabilityClient(ctx);
      const file = ctx.file('hostile-swap.txt');
      const secret = path.join(ctx.session.tmpdir, `secret-${process.pid}.txt`);
      fs.writeFileSync(secret, 'secret\n');
      ctx.defer(() => fs.rmSync(secret, { force: true }));
      fs.symlinkSync(secret, `${file}.swap`);
      await ctx.session.swapOnOpen!(file, `${file}.swap`);
      const r = await openFile(c, file);
      assert.equal(r.isError, true, resultText(r));
      assert.match(resultText(r), /no longer leads to the file that was checked/);
      assert.equal(fs.readlinkSync(file), secret, 'the swap happened');
      assert.equal(await ctx.session.bufferText!(file), undefined, 'the end closed the file it opened');
      fs.rmSync(file);
    },
  },
];
