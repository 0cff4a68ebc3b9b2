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

/** Every path under `root`, relative, sorted: what a home holds. */
function tree(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true }) as string[]).sort();
}

/**
 * Install, install again, uninstall: the home under `root` holds what it held
 * before, so the folders install made above `target` are gone once empty
 * (issue 39: an empty `~/.vim/pack` stayed), and `userFolder`, one of them
 * made by the user beforehand, empty, stays.
 */
export async function assertUninstallLeavesTheHome(
  installer: InstallerUnderTest & { uninstall?(options: { env: NodeJS.ProcessEnv }): Promise<{ success: boolean; message: string }> },
  env: NodeJS.ProcessEnv,
  root: string,
  target: string,
  userFolder: string,
): Promise<void> {
  assert.ok(target.startsWith(userFolder + path.sep) && userFolder.startsWith(root + path.sep), `${userFolder} is between ${root} and ${target}`);
  for (const users of [false, true]) {
    if (users) fs.mkdirSync(userFolder, { recursive: true });
    const before = tree(root);
    for (let n = 0; n < 2; n++) {
      const installed = await installer.install({ env });
      assert.equal(installed.success, true, installed.message);
    }
    assert.ok(fs.existsSync(target));
    const removed = await installer.uninstall!({ env });
    assert.equal(removed.success, true, removed.message);
    assert.deepEqual(tree(root), before, users ? `${userFolder}, the user's, stays` : 'nothing install made stays');
  }
}
