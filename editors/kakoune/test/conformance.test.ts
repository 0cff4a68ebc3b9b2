/** The conformance suite (packages/testkit/src/conformance) against a real Kakoune in tmux with the plugin. */
import { conformanceSuite } from '@ide-companion/testkit';
import { kakouneDriver, skipKak } from './driver.js';

conformanceSuite(kakouneDriver, { skip: skipKak });
