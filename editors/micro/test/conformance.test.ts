/** The conformance suite (packages/testkit/src/conformance) against a real micro in tmux with the plugin. */
import { conformanceSuite } from '@ide-companion/testkit';
import { microDriver } from './driver.js';
import { skipMicro } from './harness.js';

conformanceSuite(microDriver, { skip: skipMicro });
