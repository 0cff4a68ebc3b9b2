/** The Emacs editor end: an Emacs Lisp package speaking JSON lines to the bundled bridge host (editors/jsonlines). */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { emacsInstaller } from './installer.js';

export { emacsInstaller, emacsInstallTarget, emacsUserDirectory, initForm } from './installer.js';
export { PACKAGE_ROOT, HOST_BUNDLE_PATH, LISP_FILES } from './packageFiles.js';

export const emacsEnd: EditorEnd = { id: 'emacs', displayName: 'Emacs', aliases: ['emacsclient', 'doom', 'spacemacs'], installer: emacsInstaller };
