/** One module per subcommand; each exports a Command. */
export interface Command {
  name: string;
  /** Full usage text for `ide-companion help NAME` and `NAME --help`. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** A subcommand as `--help` lists it; its module is loaded only when it runs (start-up time). */
export interface CommandEntry {
  name: string;
  /** The editor end whose command this is (its spec comes with it); absent for this package's own. */
  editorEnd?: string;
  load(): Promise<Command>;
}
