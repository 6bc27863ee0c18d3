export { compareVersions, formatVersion, isPrerelease, parseStrict, parseTolerant, parseVersion } from './semver.js';
export type { Identifier, ParsedVersion, ParseResult } from './semver.js';
export { exactVersionsOf, parseConstraints, satisfies } from './range.js';
export type { Comparator, Constraint, Operator } from './range.js';
export { effectiveSelection, selectVersion } from './select.js';
export type { ConsideredVersion, PackageVersionFacts, Selection, SelectOptions, VersionSelection } from './select.js';
export { planDevVersion, sequenceIdentifiers, toOciTag } from './devversion.js';
export type { DevSequence, DevVersionPlan, LabeledSelection, PlanDevVersionOptions } from './devversion.js';
