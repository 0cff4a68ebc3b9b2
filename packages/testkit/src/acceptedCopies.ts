/** The accepted texts a companion keeps in files until the agent wrote them (server/src/keptProposals.ts AcceptedCopy). */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The texts waiting in `tmpdir`'s kept folder (the TMPDIR of the companion under test), any process's, as `{filePath, content}`. */
export function acceptedCopies(tmpdir: string): Array<{ filePath: string; content: string }> {
  const dir = path.join(tmpdir, `ide-companion-kept-${process.getuid?.() ?? 'user'}`);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => /^accepted-\d+-[0-9a-f]{8}\.json$/.test(name))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { filePath: string; content: string });
}
