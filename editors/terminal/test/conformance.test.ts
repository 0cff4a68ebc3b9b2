/** The conformance suite (packages/testkit/src/conformance) against `ide-companion serve` in tmux. */
import { conformanceSuite, skipUnless, which } from '@ide-companion/testkit';
import { terminalDriver } from './driver.js';

conformanceSuite(terminalDriver, { skip: skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') });
