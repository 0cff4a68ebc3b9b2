/**
 * `npm run release`: the npm package `ide-companion` and the native artifacts
 * beside it, in dist-release/:
 *
 * - ide-companion-VERSION.tgz: every command bundled (no runtime
 *   dependencies) and every editor end's shipped files at their repository
 *   paths (shippedFiles.ts finds them there), so `ide-companion install
 *   EDITOR` works from the installed package alone;
 * - ide-companion-vscode-VERSION.vsix (`code --install-extension`);
 * - ide-companion-VERSION.tar, an Emacs package `package-install-file` takes;
 * - ide-companion-neovim-VERSION.tar.gz and ide-companion-vim-VERSION.tar.gz,
 *   each one native package folder (`ide-companion/`), made by the installers
 *   themselves so they hold what `install` would copy.
 *
 * The bundles (serve, mcp, the relay, the hosts) go in as `npm run bundle`
 * built them (scripts/release.mjs runs it first; their tests fail when they
 * are stale), with one copy of the SDK chunk that serve and the hosts share
 * (packages/server/chunks/sdk.mjs; the installers copy it beside a host).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { INSTALL_MARKER } from '@ide-companion/command/pluginInstall';
import { LISP_FILES } from '@ide-companion/emacs';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { bundleOptions } from '@ide-companion/bundler';
import { ensureVsix } from 'ide-companion-vscode';
import { COMMANDS } from '../commands/index.js';
import { findInstaller } from '../editors.js';
import { CLI_ROOT } from './bundleServe.js';

export const REPO_ROOT = path.resolve(CLI_ROOT, '..', '..');
export const RELEASE_DIR = path.join(REPO_ROOT, 'dist-release');
export const PACKAGE_NAME = 'ide-companion';

/** What the package holds besides the bundled commands, at the same paths as in the repository. */
export const SHIPPED_PATHS: readonly string[] = [
  'README.md',
  'LICENSE',
  'packages/cli/bin/ide-companion.js',
  'packages/cli/bin/ide-companion-serve.mjs',
  'packages/cli/bin/serve-chunks',
  'packages/cli/bin/ide-companion-connect.mjs',
  'packages/cli/gemini-extension',
  'packages/server/chunks',
  'editors/neovim/plugin',
  'editors/neovim/lua',
  'editors/neovim/doc',
  'editors/neovim/host',
  'editors/neovim/README.md',
  'editors/vim/plugin',
  'editors/vim/autoload',
  'editors/vim/doc',
  'editors/vim/README.md',
  ...['ide-companion.lua', 'repo.json', 'help', 'README.md'].map((entry) => `editors/micro/${entry}`),
  'editors/kakoune/rc',
  'editors/kakoune/host/kak-bridge.mjs',
  'editors/kakoune/README.md',
  ...LISP_FILES.map((name) => `editors/emacs/${name}`),
  'editors/emacs/README.md',
  'editors/jsonlines/host',
  'editors/vscode/README.md',
];

/** Each command's file, and help.mjs for the rest: the bin loads one of them and nothing else. */
const COMMANDS_DIR = 'packages/cli/dist/commands';
/** What runs from the built bundles, as the repository's bin runs them. */
const FROM_BUNDLES: Readonly<Record<string, { file: string; fn: string }>> = {
  serve: { file: './ide-companion-serve.mjs', fn: 'serve' },
  mcp: { file: '../gemini-extension/ide-companion-mcp.mjs', fn: 'mcp' },
};
const VSIX_IN_PACKAGE = 'editors/vscode/ide-companion-vscode.vsix';

export interface Release {
  version: string;
  tarball: string;
  artifacts: string[];
}

/** The package.json of the released package: one version, no dependencies. */
export function releaseManifest(version: string = COMPANION_VERSION): Record<string, unknown> {
  const root = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { description?: string; license?: string };
  return {
    name: PACKAGE_NAME,
    version,
    description:
      'IDE mode for Gemini CLI in any editor: Neovim, Vim, Emacs, VS Code and any terminal editor. The ide-companion command and every editor plugin, in one package.',
    license: root.license ?? 'Apache-2.0',
    bin: { [PACKAGE_NAME]: 'packages/cli/bin/ide-companion.js' },
    engines: { node: '>=20' },
    keywords: ['gemini-cli', 'ide', 'neovim', 'vim', 'emacs', 'vscode', 'mcp'],
  };
}

/** Builds the package folder and every artifact into `outDir` (replaced). */
export async function buildRelease(outDir: string = RELEASE_DIR, log: (line: string) => void = () => undefined): Promise<Release> {
  const version = COMPANION_VERSION;
  fs.rmSync(outDir, { recursive: true, force: true });
  const stage = path.join(outDir, 'package');
  fs.mkdirSync(stage, { recursive: true });

  for (const rel of SHIPPED_PATHS) fs.cpSync(path.join(REPO_ROOT, rel), path.join(stage, rel), { recursive: true });
  log('packaging the VS Code extension');
  fs.cpSync(ensureVsix(log), path.join(stage, VSIX_IN_PACKAGE));

  log('bundling the commands');
  for (const [file, text] of await commandFiles(stage, version)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode: file.endsWith('ide-companion.js') ? 0o755 : 0o644 });
  }
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(releaseManifest(version), null, 2)}\n`);

  log('npm pack');
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', outDir], { cwd: stage, encoding: 'utf8' })) as Array<{
    filename: string;
  }>;
  const tarball = path.join(outDir, packed[0]!.filename);

  const artifacts = [tarball];
  const vsix = path.join(outDir, `ide-companion-vscode-${version}.vsix`);
  fs.copyFileSync(path.join(stage, VSIX_IN_PACKAGE), vsix);
  artifacts.push(vsix);
  artifacts.push(await emacsPackageTar(outDir, version), await pluginArchive('neovim', outDir, version), await pluginArchive('vim', outDir, version));
  fs.rmSync(stage, { recursive: true, force: true });
  return { version, tarball, artifacts };
}

const entryName = (name: string) => `entry:${name}`;

/**
 * The MCP SDK's client side (the client's mcpSession.js, which it imports when
 * a connection opens) goes to a file of its own beside the commands: most of
 * what `status` would parse at every start is the SDK, Ajv and classic zod.
 */
const SESSION_FILE = 'mcp-session';
/**
 * What `import.meta` becomes in the CommonJS command files (shippedFiles.ts reads
 * its `url`): computed on first read, as most commands never read it.
 */
const IMPORT_META = '__ideCompanionImportMeta';
function sessionApart(): Plugin {
  return {
    name: 'session-apart',
    setup(b) {
      b.onResolve({ filter: /^\.\/mcpSession\.js$/ }, (args) =>
        /[\\/]client[\\/]dist[\\/]src[\\/]connection\.js$/.test(args.importer) ? { path: `./${SESSION_FILE}.cjs`, external: true } : undefined,
      );
    },
  };
}

/**
 * `doctor` imports the client (makeClient.ts: the CompanionClient, its
 * connection, the protocol's messages and most of zod) only when there is a
 * companion to dial: that import is a file of its own too, required when it
 * runs (not import()ed: no ES module machinery), so that doctor's start does
 * not parse it. status, context and diff import it as usual.
 */
const CLIENT_FILE = 'make-client';
function clientApart(): Plugin {
  return {
    name: 'client-apart',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/client\/makeClient\.js$/ }, (args) =>
        args.kind === 'dynamic-import' ? { path: CLIENT_FILE, namespace: 'client-apart' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'client-apart' }, () => ({ contents: `module.exports = require('./${CLIENT_FILE}.cjs');` }));
      b.onResolve({ filter: new RegExp(`^\\./${CLIENT_FILE}\\.cjs$`) }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * The commands that read discovery files but hold no client (doctor, whose
 * client is apart, list and the remote ones): their one use of zod is our
 * contract's verdict on a file's content (the client's discoveryContract.js),
 * so that goes to a file of its own, required at the first file read: with no
 * companion around, their start parses no zod. The other commands hold zod
 * for their connection anyway and keep the verdict in their own file (two
 * copies of zod would be parsed as soon as a companion runs).
 */
const CONTRACT_FILE = 'discovery-contract';
const CONTRACT_APART: readonly string[] = ['doctor', 'list', 'container', 'sandbox', 'ssh'];
function contractApart(): Plugin {
  return {
    name: 'contract-apart',
    setup(b) {
      b.onResolve({ filter: /^\.\/discoveryContract\.js$/ }, (args) =>
        /[\\/]client[\\/]dist[\\/]src[\\/]discoveryFiles\.js$/.test(args.importer) ? { path: CONTRACT_FILE, namespace: 'contract-apart' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'contract-apart' }, () => ({
        contents: `let contract;\nexport function checkAgainstContract(json) { return (contract ??= require('./${CONTRACT_FILE}.cjs')).checkAgainstContract(json); }`,
        loader: 'js',
      }));
      b.onResolve({ filter: new RegExp(`^\\./${CONTRACT_FILE}\\.cjs$`) }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/** `import * as NAME from 'node:MODULE';`, as tsc writes it (and our TypeScript sources have it). */
const BUILTIN_NAMESPACE_IMPORT = /^import \* as (\w+) from '(node:[\w/]+)';$/gm;
const CREATE_REQUIRE_HERE = 'createRequire(import.meta.url)';
const CREATE_REQUIRE_IMPORT = /^import \{ createRequire \} from 'node:module';$/m;

/**
 * Node's built-ins required, not imported as namespaces, in our own modules:
 * esbuild's CommonJS output makes each namespace import of an external module
 * a fresh copy of all its properties (`__toESM`), in every module that imports
 * it, at load. doctor made 33 copies of fs, path and os: ~1.5 ms of its start.
 * A built-in's namespace has the properties of its module object (and a
 * `default`, which none of our modules reads).
 *
 * And `createRequire(import.meta.url)` is the file's own `require` here
 * (node:module, which the import would load at start, ~0.3 ms).
 */
function builtinsRequired(): Plugin {
  return {
    name: 'builtins-required',
    setup(b) {
      b.onLoad({ filter: /\.[jt]s$/, namespace: 'file' }, (args) => {
        if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
        let text = fs.readFileSync(args.path, 'utf8').replace(BUILTIN_NAMESPACE_IMPORT, "const $1 = require('$2');");
        if (text.includes(CREATE_REQUIRE_HERE)) {
          text = text.replaceAll(CREATE_REQUIRE_HERE, 'require');
          if (!text.replace(CREATE_REQUIRE_IMPORT, '').includes('createRequire')) text = text.replace(CREATE_REQUIRE_IMPORT, '');
        }
        return { contents: text, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}

/**
 * One esbuild entry per command (`ide-companion-entry:NAME`): runs that command's
 * export through runCommand, as main.ts would after loading it.
 */
function commandEntries(): Plugin {
  const src = path.join(CLI_ROOT, 'src');
  return {
    name: 'command-entries',
    setup(b) {
      b.onResolve({ filter: /^entry:/ }, (args) => ({ path: args.path, namespace: 'command-entry' }));
      b.onLoad({ filter: /.*/, namespace: 'command-entry' }, (args) => {
        const name = args.path.slice('entry:'.length);
        if (name === 'help') return { contents: `export { helpMain as run } from './help.js';`, resolveDir: src, loader: 'ts' };
        const entry = COMMANDS.find((c) => c.name === name)!;
        return {
          contents: [
            `import { runCommand } from '../runCommand.js';`,
            `import { toCommand } from './toCommand.js';`,
            `import { ${entry.export} as loaded } from '${entry.module}';`,
            `export const run = (argv: string[]) => runCommand(${JSON.stringify(name)}, toCommand(${JSON.stringify(name)}, loaded), argv.slice(1));`,
          ].join('\n'),
          resolveDir: path.join(src, 'commands'),
          loader: 'ts',
        };
      });
    },
  };
}

/**
 * The commands as the package runs them: each its own file with all it needs
 * (no chunks shared between them, so a command reads one file besides the
 * bin), and the bin that picks one. Absolute path to text.
 */
async function commandFiles(stage: string, version: string): Promise<Map<string, string>> {
  const bundled = COMMANDS.filter((c) => !FROM_BUNDLES[c.name]).map((c) => c.name);
  const require = createRequire(import.meta.url);
  const outdir = path.join(stage, COMMANDS_DIR);
  const options: BuildOptions = {
    ...bundleOptions({ absWorkingDir: CLI_ROOT, header: '', define: { IDE_COMPANION_RELEASE: 'true', 'import.meta.url': `${IMPORT_META}.url` } }),
    // CommonJS: Node loads it with its synchronous loader, without the ES module machinery (a few ms of every start).
    format: 'cjs',
    // ASCII only (esbuild escapes the rest): Node reads the file into a one-byte string, quicker to decode and to parse.
    charset: 'ascii',
    banner: {
      js: [
        `// ide-companion ${version}: GENERATED by \`npm run release\`.`,
        `const ${IMPORT_META} = { get url() { return (this._url ??= require('node:url').pathToFileURL(__filename).href); } };`,
      ].join('\n'),
    },
    outdir,
    outExtension: { '.js': '.cjs' },
  };
  const entries = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, entryName(name)]));
  const results = await Promise.all([
    build({
      ...options,
      entryPoints: {
        ...entries([...bundled.filter((name) => !CONTRACT_APART.includes(name)), 'help']),
        [SESSION_FILE]: require.resolve('@ide-companion/client/mcpSession'),
        [CLIENT_FILE]: path.join(CLI_ROOT, 'src', 'client', 'makeClient.ts'),
      },
      plugins: [commandEntries(), sessionApart(), builtinsRequired()],
    }),
    build({
      ...options,
      entryPoints: { ...entries(CONTRACT_APART), [CONTRACT_FILE]: require.resolve('@ide-companion/client/discoveryContract') },
      plugins: [commandEntries(), sessionApart(), clientApart(), contractApart(), builtinsRequired()],
    }),
  ]);
  const files = new Map(results.flatMap((result) => result.outputFiles ?? []).map((f) => [f.path, f.text]));
  const table = Object.fromEntries([
    ...Object.entries(FROM_BUNDLES).map(([name, target]) => [name, target]),
    ...bundled.map((name) => [name, { file: `../dist/commands/${name}.cjs`, fn: 'run', whole: true }]),
  ]);
  files.set(
    path.join(stage, 'packages', 'cli', 'bin', 'ide-companion.js'),
    [
      '#!/usr/bin/env node',
      `// ide-companion ${version}: GENERATED by \`npm run release\`. Loads the one file of the command asked for`,
      '// (CommonJS, as the package has no "type": serve and mcp are the ES module bundles they are in the repository).',
      `const COMMANDS = ${JSON.stringify(table)};`,
      'const argv = process.argv.slice(2);',
      "const target = COMMANDS[argv[0]] ?? { file: '../dist/commands/help.cjs', fn: 'run', whole: true };",
      "const load = target.file.endsWith('.cjs') ? Promise.resolve().then(() => require(target.file)) : import(target.file);",
      'load',
      '  .then((m) => m[target.fn](target.whole ? argv : argv.slice(1)))',
      '  .then(',
      "    (code) => { if (typeof code === 'number') process.exitCode = code; },",
      '    (err) => { process.stderr.write(`ide-companion: ${err instanceof Error ? err.message : String(err)}\\n`); process.exitCode = 2; },',
      '  );',
      '',
    ].join('\n'),
  );
  return files;
}

/** What an installer writes for `editor` into a throwaway HOME: its target folder there. */
async function installInto(editor: string, home: string): Promise<string> {
  const installer = await findInstaller(editor);
  if (!installer) throw new Error(`no installer for ${editor}`);
  const result = await installer.install({ env: { ...process.env, HOME: home, XDG_DATA_HOME: '', XDG_CONFIG_HOME: '' } });
  if (!result.success || !result.changed?.[0]) throw new Error(`installing ${editor} for the archive failed: ${result.message}`);
  return result.changed[0];
}

/** `ide-companion/` as Vim's or Neovim's native package folder, in a .tar.gz. */
async function pluginArchive(editor: 'neovim' | 'vim', outDir: string, version: string): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-release-'));
  try {
    const target = await installInto(editor, home);
    const archive = path.join(outDir, `ide-companion-${editor}-${version}.tar.gz`);
    tar(['-czf', archive, '-C', path.dirname(target), path.basename(target)]);
    return archive;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** A multi-file Emacs package: `ide-companion-VERSION/` with the .el, its -pkg.el and the host. */
async function emacsPackageTar(outDir: string, version: string): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-release-'));
  try {
    const installed = await installInto('emacs', home);
    const name = `${PACKAGE_NAME}-${version}`;
    const dir = path.join(home, name);
    fs.cpSync(installed, dir, { recursive: true });
    fs.rmSync(path.join(dir, INSTALL_MARKER), { force: true });
    fs.writeFileSync(
      path.join(dir, `${PACKAGE_NAME}-pkg.el`),
      `;; Generated by \`npm run release\`.\n(define-package "${PACKAGE_NAME}" "${version}" "Gemini CLI's IDE mode: context, diffs and terminals" '((emacs "27.1")) :keywords '("tools" "convenience" "processes"))\n`,
    );
    const archive = path.join(outDir, `${name}.tar`);
    tar(['-cf', archive, '-C', home, name]);
    return archive;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

function tar(args: string[]): void {
  // Files owned by root and dated 1970, as npm pack does: nothing of the build machine in the archive.
  execFileSync('tar', ['--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '--sort=name', ...args]);
}
