/** One module per subcommand; each exports a Command. */
export interface Command {
  name: string;
  /** One line for `ide-companion --help`. */
  summary: string;
  /** Full usage text for `ide-companion help NAME`. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}
