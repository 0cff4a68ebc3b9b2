/** The conformance suite (packages/testkit/src/conformance) against a real Emacs in tmux with the package. */
import { conformanceSuite, skipUnless, which } from '@ide-companion/testkit';
import { emacsDriver } from './driver.js';
import { emacsclientPath, hasEmacs } from './emacs.js';

const skip =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

conformanceSuite(emacsDriver, { skip });
