/** The fuzz suite (issue 27 item 10) against a real Emacs in tmux with the package. */
import { fuzzSuite } from '@ide-companion/testkit';
import { emacsDriver } from './driver.js';
import { skipEmacsInTmux } from './emacs.js';

const skip = skipEmacsInTmux;

fuzzSuite(emacsDriver, { skip });
