import type { UpstreamSet } from '../upstream/index.js';
import type { AudienceStore } from './audiences.js';
import type { ZkLoginService } from './service.js';

/** What the zkLogin routes need; handed over by the composition root. */
export interface ZkLoginDeps {
  service: ZkLoginService;
  audiences: AudienceStore;
  /** The key's network's upstream: its current epoch bounds nonces and proofs. */
  upstreams: UpstreamSet;
}
