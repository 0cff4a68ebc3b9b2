/** The fuzz suite (issue 27 item 10) against a real Emacs in tmux with the package. */
import { fuzzSuite, skipUnless, which } from '@ide-companion/testkit';
import { emacsDriver } from './driver.js';
import { emacsclientPath, hasEmacs } from './emacs.js';

const skip =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

fuzzSuite(emacsDriver, { skip });
