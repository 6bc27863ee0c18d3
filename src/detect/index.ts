export { detectChanges, listAllVersions, kappCompare } from './detect.js';
export type { DetectOptions, DetectResult, ChangedVersion, PackageVersionRef, RangeKind, VersionCompare } from './detect.js';
export {
  classifyChanges,
  DEFAULT_IGNORE,
  normalizePackagesDir,
  packagePathParts,
  versionFolderPath,
  versionFoldersFromFiles,
} from './classify.js';
export type { Classification, ClassifyOptions, FileChange, VersionChange } from './classify.js';
export { globMatcher, globToRegExp, matchesGlob } from './glob.js';
