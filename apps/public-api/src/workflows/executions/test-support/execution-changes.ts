import { listenForNotifications, type NotificationListener } from '@docflow/persistence';
import type { PublicApi } from '../../../app';
import { recordingLogger, type TestBed } from '../../../test-support/test-app';
import { EXECUTION_CHANGED_CHANNEL } from '../execution-watch';

/** The LISTEN server.ts runs, feeding `api`'s execution watch; resolves once it listens. */
export async function listenForExecutionChanges(bed: TestBed, api: PublicApi): Promise<NotificationListener> {
  const listener = listenForNotifications({
    url: bed.db.url,
    channel: EXECUTION_CHANGED_CHANNEL,
    onNotify: (p) => api.executions.watch.onNotification(p),
    onLiveChange: (l) => api.executions.watch.setLive(l),
    logger: recordingLogger(),
  });
  await listener.ready;
  return listener;
}
