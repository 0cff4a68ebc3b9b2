/**
 * Every companion installer this project ships. An editor issue appends its
 * installer here (import + one array entry); nothing else needs to change.
 */
import type { EditorInstaller } from './types.js';
import { neovimInstaller } from './neovim.js';

export const INSTALLERS: EditorInstaller[] = [neovimInstaller];

/** Looks an installer up by id or display name, case-insensitively. */
export function findInstaller(name: string): EditorInstaller | undefined {
  const wanted = name.trim().toLowerCase();
  return INSTALLERS.find((i) => i.id.toLowerCase() === wanted || i.displayName.toLowerCase() === wanted);
}

/** Lets an embedding program add an installer at run time (tests, plugins). */
export function registerInstaller(installer: EditorInstaller): void {
  if (INSTALLERS.some((i) => i.id === installer.id)) {
    throw new Error(`an installer with id '${installer.id}' is already registered`);
  }
  INSTALLERS.push(installer);
}
