import { watch as fsWatch, type FSWatcher } from 'node:fs';
import type { Logger } from '@docflow/service-kit';
import type { DriveNotification } from '../drive-provider';
import type { FolderChanges } from './folder-changes';

export interface LocalWatchOptions {
  channelId: string;
  channelToken: string;
  resourceId: string;
  folder: string;
  expiresAt: Date;
  /** Periodic rescan: catches what fs.watch misses (network mounts, overflow, a watcher that died). */
  rescanMs: number;
  /** Notifications closer than this are coalesced into one. */
  debounceMs: number;
  notify(notification: DriveNotification): void;
  logger: Logger;
  /** Told which names the watch saw change, and when it opens and closes (reads of the folder use it). */
  changes?: FolderChanges;
}

/**
 * One local "push channel": fs.watch on the folder plus a periodic rescan,
 * each delivering the same notification a Google push would carry, so the
 * event bus treats both providers alike. It closes itself at its expiry,
 * as a Google channel does.
 */
export class LocalFolderWatch {
  private watcher: FSWatcher | undefined;
  private readonly rescan: NodeJS.Timeout;
  private readonly expiry: NodeJS.Timeout;
  private debounce: NodeJS.Timeout | undefined;
  private messageNumber = 0;
  private closed = false;

  constructor(private readonly options: LocalWatchOptions) {
    this.rescan = setInterval(() => {
      if (!this.watcher) this.openWatcher();
      this.send('change');
    }, options.rescanMs);
    this.rescan.unref();
    const ttl = Math.max(0, options.expiresAt.getTime() - Date.now());
    this.expiry = setTimeout(() => this.close(), ttl);
    this.expiry.unref();
    this.openWatcher();
    // Google sends `sync` when a channel opens; so does this one.
    this.send('sync');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.rescan);
    clearTimeout(this.expiry);
    if (this.debounce) clearTimeout(this.debounce);
    if (this.watcher) this.options.changes?.closed();
    this.watcher?.close();
    this.watcher = undefined;
  }

  private openWatcher(): void {
    if (this.closed) return;
    try {
      const watcher = fsWatch(this.options.folder, { persistent: false }, (_event, name) => {
        this.options.changes?.saw(typeof name === 'string' ? name : null);
        this.changed();
      });
      watcher.on('error', (err) => {
        this.options.logger.warn('local drive watcher failed; the rescan goes on', { channelId: this.options.channelId, err });
        watcher.close();
        if (this.watcher === watcher) {
          this.watcher = undefined;
          this.options.changes?.closed();
        }
      });
      this.watcher = watcher;
      this.options.changes?.opened();
    } catch (err) {
      this.options.logger.warn('local drive folder cannot be watched; relying on the rescan', { channelId: this.options.channelId, err });
    }
  }

  private changed(): void {
    if (this.closed || this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.send('change');
    }, this.options.debounceMs);
    this.debounce.unref();
  }

  private send(resourceState: string): void {
    if (this.closed) return;
    this.messageNumber += 1;
    const { channelId, channelToken, resourceId } = this.options;
    try {
      this.options.notify({ channelId, channelToken, resourceId, resourceState, messageNumber: this.messageNumber });
    } catch (err) {
      this.options.logger.error('local drive notification handler failed', { channelId, err });
    }
  }
}
