import { ContextUpdateNotification } from '@ide-companion/protocol';
/**
 * Notifications one client received, with arrival times, and promises that
 * resolve when a matching one arrives. Used to time "event → notification".
 */
export class NotificationLog {
  /** @type {Array<{ method: string, params: any, at: number }>} */
  entries = [];
  #waiters = new Set();

  /** Pass as connectClient's onNotification. */
  record = (method, params, at) => {
    const entry = { method, params, at };
    this.entries.push(entry);
    for (const waiter of [...this.#waiters]) {
      if (waiter.match(entry)) {
        this.#waiters.delete(waiter);
        waiter.resolve(entry);
      }
    }
  };

  /** The next entry (arriving after this call) that `match` accepts. */
  next(match) {
    return new Promise((resolve) => this.#waiters.add({ match, resolve }));
  }

  /** Entries of `method` that arrived at or after `since` (performance.now() ms). */
  since(since, method = ContextUpdateNotification.method) {
    return this.entries.filter((e) => e.at >= since && e.method === method);
  }

  clear() {
    this.entries = [];
  }
}
