/**
 * An `$EDITOR` for the terminal end's tests: a script that replaces the file
 * it is given with `text`, as a user rewriting a proposal would. The text is
 * kept in a file beside it (no quoting of CRLF or emoji in the script).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the script and its text into `dir`; returns the script's path. */
export function editorWriting(dir: string, text: string): string {
  const textFile = join(dir, 'edited.txt');
  writeFileSync(textFile, text);
  const script = join(dir, 'edit.sh');
  writeFileSync(script, `#!/bin/sh\ncat '${textFile}' > "$1"\n`, { mode: 0o755 });
  return script;
}
