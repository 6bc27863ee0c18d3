import type { CleanupItem } from '../cleanup-list.js';
import { DevpkgError } from '../errors.js';
import type { ExecFn } from '../tools/exec.js';
import { dockerArgs } from '../tools/docker.js';
import { kindArgs } from '../tools/kind.js';
import { kubectlArgs, resourceArg } from '../tools/kubectl.js';

/** The command that undoes one item (pure; tested table-style). */
export function cleanupCommand(item: CleanupItem): { cmd: string; args: string[]; env?: Record<string, string> } | undefined {
  switch (item.kind) {
    case 'kind-cluster':
      return { cmd: item.binary || 'kind', args: kindArgs.delete(item.name, item.kubeconfig) };
    case 'docker-container':
      return { cmd: 'docker', args: dockerArgs.removeContainer(item.name) };
    case 'docker-network':
      return { cmd: 'docker', args: dockerArgs.removeNetwork(item.name) };
    case 'docker-network-disconnect':
      return { cmd: 'docker', args: dockerArgs.networkDisconnect(item.network, item.container) };
    case 'kubernetes-object':
      return {
        cmd: 'kubectl',
        args: kubectlArgs.delete({
          kubeconfig: item.kubeconfig,
          resource: resourceArg(item.apiVersion, item.objectKind, item.name),
          namespace: item.namespace,
        }),
      };
    case 'management-cluster':
      return {
        cmd: item.tanzu,
        args: ['management-cluster', 'delete', item.name, '--yes'],
        ...(item.kubeconfig ? { env: { KUBECONFIG: item.kubeconfig } } : {}),
      };
    default:
      return undefined;
  }
}

/** Pure: the command a person runs to remove an item by hand (what a failed cleanup names). */
export function handCommand(item: CleanupItem): string | undefined {
  const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
  if (item.kind === 'temp-dir') return `rm -rf ${quote(item.path)}`;
  // kind's own kubeconfig entry is in devpkg's temp folder, which may be gone: the name is enough.
  const c = item.kind === 'kind-cluster' ? { cmd: item.binary || 'kind', args: kindArgs.delete(item.name) } : cleanupCommand(item);
  if (!c) return undefined;
  return [...Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${quote(v)}`), ...[c.cmd, ...c.args].map(quote)].join(' ');
}

/**
 * Deletes clusters, containers and objects recorded by the cluster modes. Throws on failure;
 * runCleanup turns that into a warning (the post step never fails the job).
 */
export async function cleanupClusterItem(item: CleanupItem, exec: ExecFn, log: (m: string) => void): Promise<void> {
  const c = cleanupCommand(item);
  if (!c) throw new DevpkgError(`no cluster cleanup for ${item.kind}`);
  log(`${c.cmd} ${c.args.join(' ')}`);
  const r = await exec(c.cmd, c.args, { allowFail: true, env: c.env, timeoutMs: 10 * 60_000 });
  if (r.code !== 0) {
    const out = (r.stderr || r.stdout).trim();
    // Already gone is success for a cleanup.
    if (/no such (container|network)|not found|does not exist|is not connected/i.test(out)) return;
    throw new DevpkgError(`${c.cmd} ${c.args[0]} exited ${r.code}: ${out.split('\n').slice(-5).join('\n')}`);
  }
}
