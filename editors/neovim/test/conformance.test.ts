/** The conformance suite (packages/testkit/src/conformance) against a real headless Neovim with the plugin. */
import { conformanceSuite, skipUnless } from '@ide-companion/testkit';
import { neovimDriver } from './driver.js';
import { hasNvim } from './harness.js';

conformanceSuite(neovimDriver, { skip: skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') });
