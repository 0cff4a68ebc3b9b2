/** The fuzz suite (issue 27 item 10) against `ide-companion bridge` with a scripted editor. */
import { fuzzSuite } from '@ide-companion/testkit';
import { bridgeDriver } from './driver.js';

fuzzSuite(bridgeDriver);
