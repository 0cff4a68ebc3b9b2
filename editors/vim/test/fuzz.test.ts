/** The fuzz suite (issue 27 item 10) against a real Vim in tmux with the plugin. */
import { fuzzSuite } from '@ide-companion/testkit';
import { vimDriver } from './driver.js';
import { skipVim } from './harness.js';

fuzzSuite(vimDriver, { skip: skipVim });
