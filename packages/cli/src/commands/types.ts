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
  /** One line for `ide-companion --help`. */
  summary: string;
  load(): Promise<Command>;
}
