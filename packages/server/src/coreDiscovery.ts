/**
 * The core agent's discovery file, how its CLI finds this companion: in TMP,
 * named by the editor's PID and the port, written at start and again when
 * what it says changes, removed with the companion, and its folders with it
 * when no other companion's file is left in them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DiscoveryFile } from '@ide-companion/protocol';
import { DiscoveryFileHandle, ensureDiscoveryDir, sweepStaleDiscoveryFiles } from './discoveryFile.js';
import type { Logger } from './logger.js';

export class CoreDiscovery {
  private folder: string | undefined;
  private handle: DiscoveryFileHandle | undefined;

  constructor(
    private readonly tmpdir: string,
    private readonly logger: Logger,
  ) {}

  /** Before listening: the folder made, the files of dead processes swept. */
  prepare(): void {
    this.folder = ensureDiscoveryDir(this.tmpdir);
    const swept = sweepStaleDiscoveryFiles(this.folder);
    if (swept.length > 0) this.logger.info('removed discovery files of dead processes', { files: swept });
  }

  /** Once the port is known: the file's name (nothing written yet). */
  name(idePid: number, port: number): void {
    this.handle = new DiscoveryFileHandle(this.folder!, idePid, port);
  }

  write(content: DiscoveryFile): void {
    // Made again if the last other companion removed it, empty, since we started.
    ensureDiscoveryDir(this.tmpdir);
    this.handle!.write(content);
  }

  /** The file, once named. */
  get path(): string | undefined {
    return this.handle?.path;
  }

  /** Synchronous, so exit handlers can call it. */
  removeSync(): void {
    this.handle?.removeSync();
  }

  /**
   * The folders of ours in TMP (the discovery file's, the one above it, and
   * `socketBase`, the socket folders' `ide-companion-UID`), when empty: rmdir
   * leaves one that still holds another companion's file, so the last
   * companion to stop takes them (issue 30). One starting meanwhile makes
   * them again before each write.
   */
  removeEmptyFolders(socketBase: string | undefined): void {
    const discoveryDir = this.handle?.dir;
    for (const dir of [socketBase, discoveryDir, discoveryDir && path.dirname(discoveryDir)]) {
      if (dir === undefined || !dir.startsWith(this.tmpdir)) continue;
      try {
        fs.rmdirSync(dir);
      } catch {
        // Not empty (another companion's, or the CLI's own), or gone already.
      }
    }
  }
}
