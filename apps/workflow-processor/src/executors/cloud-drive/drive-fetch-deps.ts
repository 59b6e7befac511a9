import { CloudDriveConfig, GoogleDriveApi, GoogleHttp, LocalDriveProvider, localDriveRoot, type DriveReader } from '@docflow/cloud-drive';
import type { Logger } from '@docflow/service-kit';
import type { CloudDriveFetchDeps } from './cloud-drive-fetch.executor';
import { DocumentImportClient } from './document-import.client';
import { LentAccessTokens } from './lent-access-tokens';

export type DriveFetchSettings = Pick<CloudDriveConfig, 'CLOUD_DRIVE_PROVIDER' | 'CLOUD_DRIVE_LOCAL_ROOT' | 'CLOUD_DRIVE_API_URL'>;

export interface DriveFetchClients extends CloudDriveFetchDeps {
  /** Frees sockets and watchers. */
  close(): Promise<void>;
}

/**
 * The fetch task's drive and importer, from CLOUD_DRIVE_* and the public
 * API's internal address: with `local` the processor reads
 * `<CLOUD_DRIVE_LOCAL_ROOT>/<user id>/` itself (it runs beside the public
 * API, runtime contract), with `google` it calls Drive v3 with access tokens
 * the public API lends it.
 */
export function driveFetchClients(settings: DriveFetchSettings, publicApi: { baseUrl: string; serviceKey: string }, logger: Logger): DriveFetchClients {
  const importer = new DocumentImportClient(publicApi);
  let drive: DriveReader;
  let closeDrive: () => Promise<void>;
  switch (settings.CLOUD_DRIVE_PROVIDER) {
    case 'local': {
      // The fetch task never watches; notifications have nowhere to go.
      const local = new LocalDriveProvider({ root: localDriveRoot(settings), logger, onNotification: () => undefined });
      drive = local;
      closeDrive = () => local.close();
      break;
    }
    case 'google': {
      const http = new GoogleHttp();
      drive = new GoogleDriveApi(settings.CLOUD_DRIVE_API_URL, http, new LentAccessTokens({ ...publicApi, logger }));
      closeDrive = async () => http.close();
      break;
    }
  }
  return {
    drive,
    importer,
    async close() {
      importer.close();
      await closeDrive();
    },
  };
}
