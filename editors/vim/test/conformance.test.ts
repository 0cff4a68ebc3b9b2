/** The conformance suite (packages/testkit/src/conformance) against a real Vim in tmux with the plugin. */
import { conformanceSuite } from '@ide-companion/testkit';
import { vimDriver } from './driver.js';
import { skipVim } from './harness.js';

conformanceSuite(vimDriver, { skip: skipVim });
