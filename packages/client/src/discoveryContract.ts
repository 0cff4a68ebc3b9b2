/**
 * What our contract (protocol's zod schemas) says of a discovery file's
 * content; discoveryFiles.ts reads everything else. A module of its own, as
 * the one use of zod when no companion is connected: the release loads it
 * only when `doctor` or `list` reads a discovery file (packages/cli/src/build/release.ts).
 */
import { DiscoveryFileSchema, IdeInfoSchema, PARSE_ONCE, RelayDiscoveryFileSchema, type DiscoveryFile, type IdeInfo } from '@ide-companion/protocol';
import type * as z from 'zod/mini';

export interface ContractVerdict {
  /** The content as the contract types it, or what is wrong with it; none for a relay's file that follows its shape. */
  contract?: { ok: true; file: DiscoveryFile } | { ok: false; error: string };
  /** `ideInfo`, when it is one. */
  ideInfo?: IdeInfo;
}

export function checkAgainstContract(json: Record<string, unknown>): ContractVerdict {
  const issues = (error: z.core.$ZodError) => error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  const verdict: ContractVerdict = {};
  if (json['port'] === undefined && json['stdio'] !== undefined) {
    // A relay's file (docs/remote.md): its own shape, no port or token to hold it to.
    const relay = RelayDiscoveryFileSchema.safeParse(json, PARSE_ONCE);
    if (!relay.success) verdict.contract = { ok: false, error: issues(relay.error) };
  } else {
    const strict = DiscoveryFileSchema.safeParse(json, PARSE_ONCE);
    verdict.contract = strict.success ? { ok: true, file: strict.data } : { ok: false, error: issues(strict.error) };
  }
  const ideInfo = IdeInfoSchema.safeParse(json['ideInfo'], PARSE_ONCE);
  if (ideInfo.success) verdict.ideInfo = ideInfo.data;
  return verdict;
}
