export { detectChanges, kappCompare } from './detect.js';
export type { ChangeReader, DetectOptions, DetectResult, ChangedVersion, PackageVersionRef, RangeKind, Touched, VersionCompare } from './detect.js';
export { DEFAULT_IGNORE } from './classify.js';
export type { FileChange } from './classify.js';
export { globMatcher, globToRegExp, matchesGlob } from './glob.js';
