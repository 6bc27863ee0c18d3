// Types of reconcile.mjs, for the TypeScript tests that import it.
/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;
export interface Target { apiVersion: string; kind: string; namespace?: string; name: string }
export type Write = { op: 'create'; body: Obj } | { op: 'patch'; patch: Obj } | { op: 'none' };
export type TargetedWrite = ({ op: 'create'; body: Obj } | { op: 'patch'; patch: Obj }) & { target: Target };

export const ADDONS_NS: string;
export const CORE_REPO: string;
export const TKR_NS: string;
export const TKR_LABEL: string;
export const ADDON_FINALIZER: string;
export function deepEqual(a: unknown, b: unknown): boolean;
export function mergePatch(before: Obj, after: Obj): Obj;
export function createOrPatch(current: Obj | undefined, skeleton: Obj, mutate: (o: Obj) => void): Write;
export function tkrNameOf(releaseVersion: string): string;
export function bomOfConfigMap(cm: Obj | undefined): Obj | undefined;
export function coreRepositoryImage(bom: Obj, tkrControllerConfig?: Obj): string | undefined;
export function imageRepository(bom: Obj, tkrControllerConfig?: Obj): string | undefined;
export function clustersForEvent(type: string, obj: Obj, clusters: Obj[]): string[];
export function reconcileCluster(view: {
  cluster: Obj;
  tkr?: Obj;
  bomConfigMaps?: Obj[];
  tkrControllerConfig?: Obj;
  addonSecrets?: Obj[];
  live?: Record<string, Obj>;
}): { status: 'skipped' | 'no-tkr' | 'no-bom' | 'reconciled'; message: string; writes: TargetedWrite[] };
export function bomTagsToCreate(tags: string[], configMaps: Obj[]): string[];
export function bomConfigMap(bomText: string, tag: string): Obj;
export function tkrToCreate(cm: Obj, existingTkrNames: Set<string>): Obj | undefined;
export function newestMetadataTag(tags: string[]): string | undefined;
export function bomMetadataWrite(current: Obj | undefined, compatibilityText: string): Write;
export function conditionUpdates(tkrs: Obj[], compatibilityText: string | undefined, clusters: Obj[], now: string): { name: string; conditions: Obj[] }[];
