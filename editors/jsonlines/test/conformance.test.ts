/** The conformance suite (packages/testkit/src/conformance) against `ide-companion bridge` with a scripted editor. */
import { conformanceSuite } from '@ide-companion/testkit';
import { bridgeDriver } from './driver.js';

conformanceSuite(bridgeDriver);
