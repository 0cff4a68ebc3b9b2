/** One module per subcommand; each exports a Command. */
export interface Command {
  name: string;
  /** Full usage text for `ide-companion help NAME` and `NAME --help`. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}
