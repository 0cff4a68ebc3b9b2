/** Where the Emacs package and the host it runs live in this repository. */
import { join, resolve } from 'node:path';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** `editors/emacs` (this file compiles to dist/src/packageFiles.js). */
export const PACKAGE_ROOT = shippedFolder(import.meta.url, '../..', 'editors/emacs');

/** The Emacs Lisp files users load: the main file (the mode, the commands) first, then one per concern. */
export const LISP_FILES: readonly string[] = [
  'ide-companion.el',
  'ide-companion-options.el',
  'ide-companion-host.el',
  'ide-companion-context.el',
  'ide-companion-diff.el',
  'ide-companion-actions.el',
];

/** The bundled JSON-lines host (editors/jsonlines), which a checkout's package finds at `../jsonlines/host/`. */
export const HOST_BUNDLE_PATH = resolve(PACKAGE_ROOT, '..', 'jsonlines', 'host', 'ide-companion-bridge.mjs');

/** Where an installed copy keeps the host (what `ide-companion--host-file` looks for first). */
export const INSTALLED_HOST_PATH = join('host', 'ide-companion-bridge.mjs');
