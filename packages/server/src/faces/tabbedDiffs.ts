/**
 * A session's blocking diffs named by the agent's tab names (Claude Code's
 * `openDiff`/`close_tab`, Copilot CLI's `open_diff`/`close_diff`): each tab
 * waits for the user's decision on one file. The diff coordinator knows one
 * proposal per file; the agent knows tabs. So:
 * - a tab name opened again (for any file) ends its first wait, closed;
 * - a file proposed again under another tab name ends the first tab's wait,
 *   closed (the coordinator replaces the proposal): closing that old tab
 *   later closes nothing;
 * - an outcome from the coordinator settles the one tab showing its file.
 */
export interface TabWaiter<T> {
  filePath: string;
  resolve: (outcome: T) => void;
}

export class TabbedDiffs<T> {
  private readonly byTab = new Map<string, TabWaiter<T>>();

  constructor(private readonly closed: () => T) {}

  /** Waits for `tabName`'s outcome; ends the waits it replaces (same tab, or same file). Returns the tab it took over from another file, if any. */
  wait(tabName: string, filePath: string): { outcome: Promise<T>; replacedFile: string | undefined } {
    const previous = this.byTab.get(tabName);
    const replacedFile = previous && previous.filePath !== filePath ? previous.filePath : undefined;
    this.settleTab(tabName, this.closed());
    const sameFile = this.tabOf(filePath);
    if (sameFile !== undefined) this.settleTab(sameFile, this.closed());
    const outcome = new Promise<T>((resolve) => this.byTab.set(tabName, { filePath, resolve }));
    return { outcome, replacedFile };
  }

  settleTab(tabName: string, outcome: T): TabWaiter<T> | undefined {
    const waiter = this.byTab.get(tabName);
    if (!waiter) return undefined;
    this.byTab.delete(tabName);
    waiter.resolve(outcome);
    return waiter;
  }

  /** Settles the tab showing `filePath`; false when none waits. */
  settleFile(filePath: string, outcome: T): boolean {
    const tab = this.tabOf(filePath);
    return tab !== undefined && this.settleTab(tab, outcome) !== undefined;
  }

  tabOf(filePath: string): string | undefined {
    for (const [tab, waiter] of this.byTab) if (waiter.filePath === filePath) return tab;
    return undefined;
  }

  fileOf(tabName: string): string | undefined {
    return this.byTab.get(tabName)?.filePath;
  }

  /** Whether `tabName` still waits with `waiter` (not replaced since). */
  holds(tabName: string, filePath: string): boolean {
    return this.byTab.get(tabName)?.filePath === filePath;
  }

  get tabs(): string[] {
    return [...this.byTab.keys()];
  }

  /** Ends every wait, closed. */
  settleAll(): void {
    for (const tab of this.tabs) this.settleTab(tab, this.closed());
  }
}
