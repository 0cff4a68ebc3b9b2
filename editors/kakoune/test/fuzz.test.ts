/** The fuzz suite (packages/testkit/src/conformance/fuzz.ts) against a real Kakoune in tmux with the plugin. */
import { fuzzSuite } from '@ide-companion/testkit';
import { kakouneDriver, skipKak } from './driver.js';

fuzzSuite(kakouneDriver, { skip: skipKak });
