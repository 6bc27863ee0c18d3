export { detectChanges, kappCompare } from './detect.js';
export type { ChangeReader, DetectOptions, DetectResult, ChangedVersion, PackageVersionRef, RangeKind, Touched, VersionCompare } from './detect.js';
export {
  classifyChanges,
  DEFAULT_IGNORE,
  normalizePackagesDir,
  locatePackagePath,
  packagePathParts,
  versionFolderPath,
  versionFoldersFromFiles,
} from './classify.js';
export type { Classification, ClassifyOptions, FileChange, PackagePath, VersionChange } from './classify.js';
export { globMatcher, globToRegExp, matchesGlob } from './glob.js';
