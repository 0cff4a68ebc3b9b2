export { emacsInstaller, emacsInstallTarget, emacsUserDirectory, usePackageForm, EMACS_INSTALL_MARKER } from './installer.js';
export { PACKAGE_ROOT, HOST_BUNDLE_PATH, LISP_FILES } from './packageFiles.js';
