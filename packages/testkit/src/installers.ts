/** What every editor's installer (`ide-companion install EDITOR`) must do, checked the same way for each. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** An editor's installer, as the tests call it (packages/command's EditorInstaller). */
export interface InstallerUnderTest {
  install(options: { env: NodeJS.ProcessEnv }): Promise<{ success: boolean; message: string }>;
}

/** A folder at `target` the installer did not write: the install fails with a message matching `said`, and the folder's file is left as it was. */
export async function assertLeavesForeignFolder(installer: InstallerUnderTest, env: NodeJS.ProcessEnv, target: string, said: RegExp): Promise<void> {
  fs.mkdirSync(target, { recursive: true });
  fs.writeFileSync(path.join(target, 'mine.txt'), 'hand-made');
  const result = await installer.install({ env });
  assert.equal(result.success, false);
  assert.match(result.message, said);
  assert.equal(fs.readFileSync(path.join(target, 'mine.txt'), 'utf8'), 'hand-made');
}
