/**
 * A resumable watch over a namespaced collection (optionally one object by name): list once,
 * then watch from the list's resourceVersion; on a disconnect resume from the last
 * resourceVersion seen, on 410 Gone (or an ERROR event) list again. Reconnects back off with
 * timers; nothing polls while the connection is up.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KObject } from './kobject.js';

export interface CollectionRef {
  group: string;
  version: string;
  plural: string;
  namespace: string;
  /** Watch only this object (fieldSelector metadata.name=...). */
  name?: string;
  /** Watch only objects with these labels. */
  labelSelector?: string;
}

export interface WatchEvents {
  /** The collection changed; `objects` is the full current set. */
  onChange(objects: Map<string, KObject>, changed: KObject | undefined, type: string): void;
  /** A connection problem worth a log line (the watch keeps trying). */
  onProblem?(message: string): void;
  /** The server does not serve watches for this collection (405/404 on watch); the watch stopped. */
  onUnsupported?(message: string): void;
  /** Listed afresh (first time, or after 410 / an ERROR event); for tests and logs. */
  onList?(resourceVersion: string, reason: string): void;
  /** The API server said something (a list, a watch opened, any event, a bookmark): it is answering. */
  onActivity?(): void;
}

const MIN_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5000;

function statusOf(err: unknown): number | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { statusCode?: unknown; code?: unknown };
  if (typeof e.statusCode === 'number') return e.statusCode;
  if (typeof e.code === 'number') return e.code;
  return undefined;
}

export function collectionPath(ref: CollectionRef): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  return `${base}/namespaces/${encodeURIComponent(ref.namespace)}/${ref.plural}`;
}

/** The first list never got an answer from the server (no HTTP status): the cluster was not reached. */
export class UnreachableError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'UnreachableError';
  }
}

export class ResumableWatch {
  private readonly objects = new Map<string, KObject>();
  private resourceVersion = '';
  private abort?: AbortController;
  private timer?: NodeJS.Timeout;
  private wake?: () => void;
  private stopped = false;
  /** reopen() asked for the connection to be replaced: reconnect at once, without back-off. */
  private reopening = false;
  private backoff = MIN_BACKOFF_MS;
  /** Number of times the collection was listed (1 + relists); read by tests. */
  lists = 0;
  /** Number of watch connections opened; read by tests. */
  connects = 0;

  constructor(
    private readonly kc: KubeConfig,
    private readonly ref: CollectionRef,
    private readonly events: WatchEvents,
    /** How many times start() tries a server that does not answer at all before it gives up. */
    private readonly unreachableAttempts = 3,
  ) {}

  /**
   * Lists and starts watching; resolves after the first list. Rejects when the server refuses
   * (4xx: no such resource, forbidden); an unreachable or failing server (no answer, 5xx, 429,
   * e.g. an apiserver restart) is retried with back-off instead.
   */
  async start(): Promise<void> {
    // A server that never answered (connection refused, no route, DNS) is tried a few times,
    // then given up on: the cluster was never reached, and waiting out the time-out would
    // only hide why.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.list('start');
        break;
      } catch (err) {
        if (this.stopped) return;
        const code = statusOf(err);
        if (code !== undefined && code >= 400 && code < 500 && code !== 429) throw err;
        const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
        if (code === undefined && attempt >= this.unreachableAttempts) throw new UnreachableError(message, err);
        this.events.onProblem?.(`${this.ref.plural}: ${message}; retrying`);
        if (code !== undefined) {
          // Reached, but failing (5xx, 429, e.g. an apiserver restart): keep trying in the background.
          this.schedule(true, this.nextBackoff());
          return;
        }
        await new Promise<void>((r) => {
          this.wake = r;
          this.timer = setTimeout(r, this.nextBackoff());
        });
        if (this.stopped) return;
      }
    }
    await this.watch();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    this.abort?.abort();
  }

  /**
   * Closes the watch connection and opens a new one from the last resourceVersion seen (a
   * connection that went silent while the API server did not answer may be dead without knowing).
   */
  reopen(): void {
    if (this.stopped || !this.abort) return;
    this.reopening = true;
    this.abort.abort();
  }

  /** Lists once more (used when watching is not supported). */
  async relist(): Promise<void> {
    await this.list('on demand');
  }

  current(): Map<string, KObject> {
    return new Map(this.objects);
  }

  private async list(reason: string): Promise<void> {
    const k8s = await import('@kubernetes/client-node');
    const selectors = {
      ...(this.ref.name ? { fieldSelector: `metadata.name=${this.ref.name}` } : {}),
      ...(this.ref.labelSelector ? { labelSelector: this.ref.labelSelector } : {}),
    };
    let data: { metadata?: { resourceVersion?: string }; items?: KObject[] };
    if (this.ref.group === '') {
      // The core group: only pods are watched there (the workload of an App).
      if (this.ref.plural !== 'pods') throw new Error(`ResumableWatch: core ${this.ref.plural} is not supported`);
      const list = await this.kc.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: this.ref.namespace, ...selectors });
      // Typed models carry Dates; the watch delivers JSON. Keep one form.
      data = JSON.parse(JSON.stringify(list)) as typeof data;
    } else {
      const api = this.kc.makeApiClient(k8s.CustomObjectsApi);
      data = (await api.listNamespacedCustomObject({
        group: this.ref.group,
        version: this.ref.version,
        namespace: this.ref.namespace,
        plural: this.ref.plural,
        ...selectors,
      })) as typeof data;
    }
    this.objects.clear();
    for (const o of data.items ?? []) {
      if (o.metadata?.name) this.objects.set(o.metadata.name, o);
    }
    this.resourceVersion = data.metadata?.resourceVersion ?? '';
    this.lists++;
    this.events.onActivity?.();
    this.events.onList?.(this.resourceVersion, reason);
    this.events.onChange(this.current(), undefined, 'LIST');
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    const k8s = await import('@kubernetes/client-node');
    const w = new k8s.Watch(this.kc);
    let relist = false;
    const params: Record<string, string | number | boolean> = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      // Let the server end the watch now and then, so a silently dead connection cannot hang us forever.
      timeoutSeconds: 240 + Math.floor(Math.random() * 60),
    };
    if (this.ref.name) params.fieldSelector = `metadata.name=${this.ref.name}`;
    if (this.ref.labelSelector) params.labelSelector = this.ref.labelSelector;
    this.connects++;
    this.reopening = false;
    let ended = false;
    const abort = await w.watch(
      collectionPath(this.ref),
      params,
      (type, obj: KObject & { code?: number; message?: string }) => {
        if (this.stopped) return;
        this.backoff = MIN_BACKOFF_MS;
        this.events.onActivity?.();
        if (type === 'ERROR') {
          // 410 Gone (resourceVersion too old) or any other server-side error: start over.
          relist = true;
          this.events.onProblem?.(`watch ${this.ref.plural}: ${obj.code ?? ''} ${obj.message ?? 'error event'}; listing again`);
          this.abort?.abort();
          return;
        }
        const rv = obj.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (type === 'BOOKMARK') return;
        const name = obj.metadata?.name;
        if (!name) return;
        if (type === 'DELETED') this.objects.delete(name);
        else this.objects.set(name, obj);
        this.events.onChange(this.current(), obj, type);
      },
      (err: unknown) => {
        ended = true;
        if (this.stopped) return;
        const code = statusOf(err);
        if ((code === 405 || code === 404) && this.events.onUnsupported) {
          this.stop();
          this.events.onUnsupported(`the server does not watch ${this.ref.plural} (HTTP ${code})`);
          return;
        }
        if (code === 410) relist = true;
        if (err && !(err instanceof Error && err.name === 'AbortError')) {
          this.events.onProblem?.(`watch ${this.ref.plural} ended: ${err instanceof Error ? err.message : String(err)}; reconnecting`);
        }
        // A clean end (server timeout) or a reopen reconnects at once; an error backs off.
        const reopened = this.reopening;
        this.reopening = false;
        this.schedule(relist, err && !relist && !reopened ? this.nextBackoff() : 0);
      },
    );
    this.abort = abort;
    // The server answered the request (a failed one has ended already).
    if (!ended) this.events.onActivity?.();
    // Stopped while the connection was being opened: close it now, or it would keep the
    // process alive until the server ends the watch (minutes) after the verdict.
    if (this.stopped) abort.abort();
  }

  private nextBackoff(): number {
    const ms = this.backoff;
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    return ms;
  }

  private schedule(relist: boolean, ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void (async () => {
        try {
          if (relist || !this.resourceVersion) await this.list(relist ? 'resourceVersion expired' : 'reconnect');
          await this.watch();
        } catch (err) {
          const code = statusOf(err);
          this.events.onProblem?.(`${this.ref.plural}: ${err instanceof Error ? err.message : String(err)}; retrying`);
          this.schedule(relist || code === 410, this.nextBackoff());
        }
      })();
    }, ms);
  }
}
