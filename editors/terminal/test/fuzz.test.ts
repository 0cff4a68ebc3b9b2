/** The fuzz suite (issue 27 item 10) against `ide-companion serve` in tmux. */
import { fuzzSuite, skipUnless, which } from '@ide-companion/testkit';
import { terminalDriver } from './driver.js';

fuzzSuite(terminalDriver, { skip: skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') });
