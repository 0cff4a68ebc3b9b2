/**
 * The conformance suite and the fuzz suite (packages/testkit/src/conformance)
 * against the extension in code-server: both in this one file, so that one
 * code-server and one Chromium serve them (each session its own window).
 */
import { after } from 'node:test';
import { conformanceSuite, fuzzSuite, skipUnless } from '@ide-companion/testkit';
import { CHROMIUM, hasCodeServer } from './codeServer.js';
import { stopSharedCodeServer, vscodeDriver } from './conformanceDriver.js';

const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium');

conformanceSuite(vscodeDriver, { skip });
fuzzSuite(vscodeDriver, { skip });
after(stopSharedCodeServer);
