/** The fuzz suite (issue 27 item 10) against a real micro in tmux with the plugin. */
import { fuzzSuite } from '@ide-companion/testkit';
import { microDriver } from './driver.js';
import { skipMicro } from './harness.js';

fuzzSuite(microDriver, { skip: skipMicro });
