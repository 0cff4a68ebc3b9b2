/**
 * Issue 39 (18): scripts/install-code-server.sh failed with a clean HOME (as
 * CI's): argon2's native build asked nodejs.org for Node's headers, and it
 * worked only where a ~/.npmrc set npm's nodedir. The script now points
 * nodedir at the running Node's own headers (pinned-npm.sh
 * use_node_headers). Here argon2, at the version code-server pins, is built
 * from source as the script's npm does, with an empty HOME, offline from
 * npm's cache, and node-gyp's download address a loopback server that
 * counts what is asked of it: with use_node_headers nothing is, and the
 * build passes; without it, the headers are asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, skipUnless } from '@ide-companion/testkit';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const ARGON2 = path.join(REPO_ROOT, '.tools/code-server/node_modules/argon2/package.json');
const argon2Version = fs.existsSync(ARGON2) ? (JSON.parse(fs.readFileSync(ARGON2, 'utf8')) as { version: string }).version : undefined;
// npm's cache as the user has it (the install filled it): the build runs offline from there.
const npmCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout?.trim();
const skip = skipUnless(argon2Version !== undefined && !!npmCache, "code-server's argon2 and npm's cache", 'run scripts/install-code-server.sh');

const BUILD_TIMEOUT_MS = 5 * 60_000;

/** `npm install --offline --build-from-source argon2@VERSION` in an empty folder with an empty HOME; `setup` runs first in the same shell. */
function buildArgon2(setup: string, distUrl: string): Promise<{ status: number | null; output: string; built: boolean }> {
  const dir = makeTempDir('ide-companion-clean-home-');
  const home = path.join(dir.path, 'home');
  const pkg = path.join(dir.path, 'pkg');
  fs.mkdirSync(home);
  fs.mkdirSync(pkg);
  fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"clean-home","private":true}\n');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, npm_config_cache: npmCache, npm_config_dist_url: distUrl, npm_config_build_from_source: 'true' };
  for (const name of Object.keys(env)) if (/^npm_config_(nodedir|userconfig|globalconfig)$/i.test(name) || name.startsWith('XDG_')) delete env[name];
  const script = `. '${path.join(REPO_ROOT, 'scripts/pinned-npm.sh')}' && ${setup} && npm install --offline --no-audit --no-fund --loglevel=error argon2@${argon2Version}`;
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: pkg, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), BUILD_TIMEOUT_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      const binding = path.join(pkg, 'node_modules/argon2/lib/binding');
      const built = fs.existsSync(binding) && fs.readdirSync(binding, { recursive: true }).some((f) => String(f).endsWith('argon2.node'));
      dir.cleanup();
      resolve({ status, output: output.slice(-3000), built });
    });
  });
}

test(
  "argon2, as install-code-server.sh builds it, needs nothing of HOME or the network: Node's own headers",
  { skip, timeout: 2 * BUILD_TIMEOUT_MS + 60_000 },
  async () => {
    // node-gyp's header downloads come here, and are refused.
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const distUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const withHeaders = await buildArgon2('use_node_headers', distUrl);
      assert.deepEqual(asked, [], 'nothing downloaded');
      assert.equal(withHeaders.status, 0, withHeaders.output);
      assert.equal(withHeaders.built, true, 'argon2.node built');

      // What the script did before: node-gyp asks for the headers, and a clean HOME has no nodedir to stop it.
      const without = await buildArgon2('true', distUrl);
      assert.notEqual(without.status, 0, without.output);
      assert.ok(asked.length > 0, 'the headers asked of the network');
    } finally {
      server.close();
    }
  },
);
