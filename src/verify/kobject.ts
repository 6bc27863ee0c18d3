// The shape of a Kubernetes object as the verifier reads it; at the bottom of verify/ so that
// evaluate.ts, watch.ts and pods.ts can share it without importing one another.

/** The parts of a Kubernetes object the verdict reads. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    generation?: number;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    managedFields?: Array<{ manager?: string; operation?: string; time?: string; subresource?: string }>;
    [k: string]: unknown;
  };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  status?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  [k: string]: unknown;
}
