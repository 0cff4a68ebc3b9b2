// typescript-eslint's recommended rules over every package and editor end; formatting is prettier's (npm run format).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** zod/mini, not classic zod: classic binds dozens of methods to every schema, and building the
 * protocol's schemas that way was ~20 ms of every host's start (docs/benchmarks.md, serve start). */
const CLASSIC_ZOD = { name: 'zod', message: "Use `import * as z from 'zod/mini'`." };

/**
 * Layers one way (docs/architecture.md): protocol <- shared <- server and client <- command <- the
 * editor ends <- cli. A package's sources import only the packages below it (its tests may use more).
 */
const LAYERS = [
  { files: ['packages/protocol/src/**'], may: [] },
  // The build tool: esbuild and nothing of ours (it bundles the others, it imports none).
  { files: ['packages/bundler/src/**'], may: [] },
  { files: ['packages/shared/src/**'], may: ['protocol'] },
  { files: ['packages/server/src/**'], may: ['protocol', 'shared'] },
  { files: ['packages/client/src/**'], may: ['protocol', 'shared'] },
  // Its TypeScript (what server's own tests import); the .mjs scripts it starts in child processes run built packages.
  { files: ['packages/testkit/src/**/*.ts'], may: ['protocol'] },
  { files: ['packages/command/src/**'], may: ['protocol', 'shared'] },
  { files: ['editors/*/src/**'], may: ['protocol', 'shared', 'server', 'command', 'jsonlines', 'testkit', 'bundler'] },
];
const layerRules = LAYERS.map(({ files, may }) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [CLASSIC_ZOD],
        patterns: [
          {
            group: ['@ide-companion/*', ...may.map((name) => `!@ide-companion/${name}`), 'ide-companion-vscode', 'ide-companion-vscode/*'],
            message: `Layers go one way: this package may import ${may.length ? may.map((n) => `@ide-companion/${n}`).join(', ') : 'no other package of ours'} (docs/architecture.md).`,
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '.tools/**',
      'editors/*/host/*.mjs',
      'editors/*/host/chunks/**',
      'packages/cli/gemini-extension/*.mjs',
      'packages/cli/bin/ide-companion-serve.mjs',
      'packages/cli/bin/ide-companion-connect.mjs',
      'packages/cli/bin/serve-chunks/**',
      'packages/server/chunks/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        Headers: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        globalThis: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      // A closure may read a variable assigned once, later (a callback set up before the object it calls exists).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-restricted-imports': ['error', { paths: [CLASSIC_ZOD] }],
      // `{ z }` is zod's whole namespace as one value: a bundle then keeps every locale (~260 KB parsed at each start).
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod/mini'][importKind!='type'] > ImportSpecifier[imported.name='z']",
          message: "Use `import * as z from 'zod/mini'`: it lets esbuild drop what is unused.",
        },
      ],
    },
  },
  ...layerRules,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // Tests read JSON-RPC payloads and tool results loosely on purpose.
    files: ['**/test/**/*.ts', 'bench/**/*.mjs', 'packages/testkit/src/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
