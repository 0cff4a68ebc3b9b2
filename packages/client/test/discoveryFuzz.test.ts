/**
 * Many generated discovery situations (seeded, so a failure reproduces): our
 * choice and workspace verdict against the real CLI's, one child process
 * running the real getConnectionConfigFromFile over all of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, makeTempDir, seededRandom, skipUnless } from '@ide-companion/testkit';
import { isProcessAlive } from '@ide-companion/server';
import { discoverCompanion } from '../src/index.js';
import { cleanEnv } from './helpers.js';

const cli = findGeminiCli();
const SEED = Number(process.env['DISCOVERY_FUZZ_SEED'] ?? 20261122);
const COUNT = 60;

interface Case {
  tmp: string;
  cwd: string;
  idePid: number;
  envPort?: string;
}

test(`generated discovery situations: our choice equals the real CLI's (seed ${SEED})`, { skip: skipUnless(!!cli, 'the pinned Gemini CLI') }, async () => {
  const random = seededRandom(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  // Above every OS's PID ceiling: never alive, whatever else runs on the machine.
  const dead = [90_000_101, 90_000_202, 90_000_303, 90_000_404, 90_000_505, 90_000_606];
  assert.ok(dead.every((pid) => !isProcessAlive(pid)));
  const alive = [process.pid, 1];
  const root = makeTempDir('ide-fuzz-');
  const cases: Case[] = [];
  try {
    for (let i = 0; i < COUNT; i++) {
      const tmp = path.join(root.path, `case${i}`);
      const dir = path.join(tmp, 'gemini', 'ide');
      const a = path.join(tmp, 'a');
      const b = path.join(tmp, 'b');
      fs.mkdirSync(dir, { recursive: true });
      fs.mkdirSync(path.join(a, 'sub'), { recursive: true });
      fs.mkdirSync(b);
      const idePid = pick([...alive, ...dead]);
      const workspaces = [a, b, `${b}${path.delimiter}${a}`, '', path.join(a, 'sub'), path.join(tmp, 'missing'), undefined];
      const ports: number[] = [];
      const n = 1 + Math.floor(random() * 4);
      for (let f = 0; f < n; f++) {
        const pid = pick([...alive, ...dead, idePid]);
        const port = 1000 + i * 10 + f;
        ports.push(port);
        const file = path.join(dir, `gemini-ide-server-${pid}-${port}.json`);
        const kind = random();
        if (kind < 0.08) fs.writeFileSync(file, '{broken');
        else if (kind < 0.12) fs.writeFileSync(file, '"a string"');
        else {
          const ws = pick(workspaces);
          fs.writeFileSync(
            file,
            JSON.stringify({ port, authToken: `tok-${i}-${f}`, ...(ws === undefined ? {} : { workspacePath: ws }), ideInfo: { name: 'x', displayName: 'X' } }),
          );
          if (process.getuid?.() === 0 && random() < 0.1) fs.chownSync(file, 65534, 65534);
        }
      }
      const cwd = pick([a, path.join(a, 'sub'), b]);
      const envPort = random() < 0.35 ? String(pick(ports)) : undefined;
      cases.push({ tmp, cwd, idePid, envPort });
    }

    const ideDir = path.join(cli!.coreDir, 'dist', 'src', 'ide');
    const script = `
      for (const l of ['log','info','debug','warn','error']) console[l] = () => {};
      const utils = await import(${JSON.stringify(path.join(ideDir, 'ide-connection-utils.js'))});
      const cases = JSON.parse(await (await import('node:fs/promises')).readFile(process.argv[1], 'utf8'));
      const out = [];
      for (const c of cases) {
        process.env.TMPDIR = c.tmp;
        process.chdir(c.cwd);
        if (c.envPort) process.env.GEMINI_CLI_IDE_SERVER_PORT = c.envPort; else delete process.env.GEMINI_CLI_IDE_SERVER_PORT;
        const config = await utils.getConnectionConfigFromFile(c.idePid);
        const check = utils.validateWorkspacePath(config?.workspacePath, process.cwd());
        out.push({ token: config?.authToken ?? null, valid: check.isValid, error: check.error ?? null });
      }
      process.stdout.write(JSON.stringify(out));
    `;
    const casesFile = path.join(root.path, 'cases.json');
    fs.writeFileSync(casesFile, JSON.stringify(cases));
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, casesFile], { env: cleanEnv(), encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const real = JSON.parse(r.stdout) as Array<{ token: string | null; valid: boolean; error: string | null }>;

    let matched = 0;
    let mismatched = 0;
    for (const [i, c] of cases.entries()) {
      const env = cleanEnv(c.envPort ? { GEMINI_CLI_IDE_SERVER_PORT: c.envPort } : {});
      const mine = await discoverCompanion({
        cwd: c.cwd,
        env,
        tmpdir: c.tmp,
        ideProcess: { pid: c.idePid, command: '', source: 'env', chain: [] },
        wellKnownPorts: false,
      });
      const token = (mine.chosen?.config?.['authToken'] as string | undefined) ?? null;
      const why = `case ${i} (seed ${SEED}): ${JSON.stringify(c)} files ${fs.readdirSync(path.join(c.tmp, 'gemini', 'ide')).join(',')}`;
      assert.equal(token, real[i]!.token, `choice differs in ${why}`);
      // Compare the verdict on the chosen file's workspace, as the real script does.
      const verdict = mine.chosen ? (mine.chosen.workspace ?? { ok: false, error: undefined }) : { ok: false, error: undefined };
      if (mine.chosen?.config) {
        assert.equal(verdict.ok, real[i]!.valid, `workspace verdict differs in ${why}`);
        if (!real[i]!.valid) assert.equal(verdict.error, real[i]!.error, `message differs in ${why}`);
      }
      if (real[i]!.valid) matched++;
      else mismatched++;
    }
    // The generator must exercise both outcomes, or the comparison proves little.
    assert.ok(matched >= 5 && mismatched >= 5, `too one-sided: ${matched} matched, ${mismatched} not`);
  } finally {
    root.cleanup();
  }
});
