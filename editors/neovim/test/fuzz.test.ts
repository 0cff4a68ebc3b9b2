/** The fuzz suite (issue 27 item 10) against a real headless Neovim with the plugin. */
import { fuzzSuite, skipUnless } from '@ide-companion/testkit';
import { neovimDriver } from './driver.js';
import { hasNvim } from './harness.js';

fuzzSuite(neovimDriver, { skip: skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') });
