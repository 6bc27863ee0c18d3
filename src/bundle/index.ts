export { pushBundle, pushCommandEnv, pushCommandArgs, explainPushFailure, type PushBundleOptions, type PushBundleResult } from './push.js';
export {
  validateTag,
  bundleRepository,
  clusterImage,
  registryText,
  type Registry,
  BUNDLE_SUFFIX,
  parseRepository,
  parseImageTag,
  parseDigestReference,
  formatRepository,
  usesPlainHttp,
  rewriteImageHost,
  type Repository,
} from './reference.js';
export { RegistryClient, parseWwwAuthenticate, MANIFEST_ACCEPT, type RegistryCredentials } from './registry.js';
export { checkBundleDir, parseBundleLock, kbldLockCommand } from './folder.js';
export { startKindRegistry, clusterHostFor, type KindRegistry, type KindRegistryOptions } from './kind-registry.js';
export { ensureCarvelTool, CARVEL_RELEASES, DEFAULT_VERSIONS } from '../tools/carvel.js';
