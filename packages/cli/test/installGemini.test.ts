/**
 * `ide-companion install gemini` in a throwaway HOME: with the pinned Gemini
 * CLI on PATH it runs `gemini extensions install` (again: an update), without
 * it copies the extension as that command would; either way the real CLI
 * lists the extension and its MCP server, which runs from the copy.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, makeGeminiHome, makeTempDir, runNode, skipUnless } from '@ide-companion/testkit';
import { bin, isolatedEnv } from './support/mcpAgent.js';

const cli = findGeminiCli();
const skip = skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

function throwaway() {
  const tmp = makeTempDir('ide-companion-install-gemini-');
  const home = makeGeminiHome(path.join(tmp.path, 'home'));
  const binDir = path.join(tmp.path, 'bin');
  fs.mkdirSync(binDir);
  // Only node on PATH: no gemini unless the test puts one there.
  fs.symlinkSync(process.execPath, path.join(binDir, 'node'));
  const env = isolatedEnv(tmp.path, { HOME: home, PATH: binDir, GEMINI_API_KEY: 'dummy' });
  delete env['GEMINI_CLI_HOME'];
  return { tmp, home, binDir, env, ext: path.join(home, '.gemini', 'extensions', 'ide-companion') };
}

/** `gemini extensions list` as the real CLI prints it. */
async function geminiList(env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  const r = await runNode([cli!.geminiBin, 'extensions', 'list'], { env, cwd, timeoutMs: 120_000 });
  return r.stdout + r.stderr;
}

describe('ide-companion install gemini', { skip, timeout: 300_000 }, () => {
  test('without gemini on PATH: the folder is copied as the CLI would, and the CLI lists it', async () => {
    const t = throwaway();
    try {
      const dry = await runNode([bin, 'install', 'gemini', '--dry-run'], { env: t.env, cwd: t.tmp.path });
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, /Would run: copy .*gemini-extension to .*extensions\/ide-companion/);
      assert.equal(fs.existsSync(t.ext), false, 'a dry run changes nothing');

      const r = await runNode([bin, 'install', 'gemini'], { env: t.env, cwd: t.tmp.path });
      assert.equal(r.code, 0, r.stderr);
      for (const f of ['gemini-extension.json', 'GEMINI.md', 'ide-companion-mcp.mjs']) assert.ok(fs.existsSync(path.join(t.ext, f)), f);
      assert.equal(JSON.parse(fs.readFileSync(path.join(t.ext, '.gemini-extension-install.json'), 'utf8')).type, 'local');
      const listed = await geminiList(t.env, t.tmp.path);
      assert.match(listed, /ide-companion/);
      assert.match(listed, /ide-companion-mcp\.mjs|MCP servers/);
    } finally {
      t.tmp.cleanup();
    }
  });

  test('with gemini on PATH: `gemini extensions install` does it, and a second run updates it', async () => {
    const t = throwaway();
    try {
      fs.writeFileSync(path.join(t.binDir, 'gemini'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cli!.geminiBin)} "$@"\n`, {
        mode: 0o755,
      });
      for (const run of [1, 2]) {
        const r = await runNode([bin, 'install', 'gemini', '--json'], { env: t.env, cwd: t.tmp.path, timeoutMs: 180_000 });
        assert.equal(r.code, 0, `run ${run}: ${r.stdout}${r.stderr}`);
        const out = JSON.parse(r.stdout);
        assert.equal(out.success, true);
        assert.ok(
          out.log.some((l: string) => /gemini: .*installed successfully/.test(l)),
          out.log.join('\n'),
        );
        if (run === 2)
          assert.ok(
            out.log.some((l: string) => /successfully uninstalled/.test(l)),
            out.log.join('\n'),
          );
      }
      // The CLI's own install record: the source is this repository's extension folder.
      const meta = JSON.parse(fs.readFileSync(path.join(t.ext, '.gemini-extension-install.json'), 'utf8'));
      assert.equal(meta.type, 'local');
      assert.match(meta.source, /packages\/cli\/gemini-extension$/);
      assert.match(await geminiList(t.env, t.tmp.path), /ide-companion/);
    } finally {
      t.tmp.cleanup();
    }
  });
});
