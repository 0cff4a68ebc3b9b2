/** The conformance suite (packages/testkit/src/conformance) against a real Emacs in tmux with the package. */
import { conformanceSuite } from '@ide-companion/testkit';
import { emacsDriver } from './driver.js';
import { skipEmacsInTmux } from './emacs.js';

const skip = skipEmacsInTmux;

conformanceSuite(emacsDriver, { skip });
