import { build } from 'esbuild';
import * as path from 'node:path';
const src = path.resolve('src');
const name = process.argv[2];
const mod = {
  status: ['./status.js', 'statusCommand'],
  list: ['./list.js', 'listCommand'],
  doctor: ['./doctor.js', 'doctorCommand'],
  context: ['./context.js', 'contextCommand'],
}[name];
const r = await build({
  stdin: {
    contents: `import { runCommand } from '../runCommand.js'; import { ${mod[1]} as c } from '${mod[0]}'; export const run = (a) => runCommand('x', c, a);`,
    resolveDir: path.join(src, 'commands'),
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  metafile: true,
  minify: true,
  alias: { 'zod/mini': 'zod/v4-mini' },
  define: { IDE_COMPANION_RELEASE: 'true' },
  logLevel: 'silent',
  outfile: '/tmp/x.mjs',
});
const out = Object.values(r.metafile.outputs)[0];
const byPkg = new Map();
for (const [f, v] of Object.entries(out.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f);
  const k = m ? m[1] + (f.includes('zod/v4/classic') ? ' (classic)' : f.includes('zod/v3') ? ' (v3)' : '') : f.split('/').slice(0, 3).join('/');
  byPkg.set(k, (byPkg.get(k) || 0) + v.bytesInOutput);
}
console.log('total', out.bytes);
for (const [k, v] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(v, k);
