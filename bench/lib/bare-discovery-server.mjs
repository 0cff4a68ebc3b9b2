#!/usr/bin/env node
/**
 * The limit for start time and idle memory: a bare node:http server (the one in
 * bare-sse-server.mjs, so an MCP SDK client can connect and idle on it) that
 * writes the same discovery file a companion writes (TMPDIR/gemini/ide, temp
 * file then rename) and removes it on SIGTERM. argv[2]: the workspace.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startBareSseServer } from './bare-sse-server.mjs';

const workspace = process.argv[2];
const server = await startBareSseServer();
const dir = path.join(os.tmpdir(), 'gemini', 'ide');
fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
const file = path.join(dir, `gemini-ide-server-${process.pid}-${server.port}.json`);
const content = { port: server.port, workspacePath: workspace, authToken: randomUUID(), ideInfo: { name: 'bare', displayName: 'Bare' } };
fs.writeFileSync(`${file}.tmp`, JSON.stringify(content), { mode: 0o600 });
fs.renameSync(`${file}.tmp`, file);
process.once('SIGTERM', () => {
  fs.rmSync(file, { force: true });
  process.exit(0);
});
