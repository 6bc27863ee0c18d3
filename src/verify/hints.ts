/**
 * What a registry address means from inside the cluster, pure: an up-front warning for a pull
 * address the cluster probably cannot use, and a hint for the errors kapp-controller's fetch
 * gives for such addresses. kapp-controller fetches bundles itself (vendir/imgpkg,
 * go-containerregistry) from its pod: localhost there is the pod, and plain HTTP is used only for
 * localhost, loopback, *.local and RFC1918 addresses. Also: a fetch that did not reach the registry
 * at all (names it), and images on a registry known to be gone.
 */
import { isLoopbackHost, type Registry } from '../bundle/reference.js';

const SET_PULL =
  'push with --registry (input registry) as before and set --cluster-registry (input cluster-registry) to an address the ' +
  "cluster reaches: with kind's local registry, the registry container's IP on the kind network and its port inside " +
  "(e.g. 172.18.0.3:5000; docker inspect -f '{{.NetworkSettings.Networks.kind.IPAddress}}' kind-registry)";

/**
 * A warning when the cluster is to pull from localhost/loopback (from `pull` when set, else from
 * `push`); undefined otherwise. `names` are the flags or inputs, e.g. --registry and
 * --cluster-registry, named in the warning.
 */
export function pullAddressWarning(push: Registry, pull: Registry | undefined, names: { push: string; pull: string }): string | undefined {
  const pullHost = (pull ?? push).host;
  if (!isLoopbackHost(pullHost)) return undefined;
  const setting = pull ? names.pull : `${names.push}; ${names.pull} is not set`;
  return (
    `the cluster is to pull the bundle from ${pullHost} (${setting}), a localhost address: inside the kapp-controller pod ` +
    `that is the pod itself, so the fetch fails unless kapp-controller runs on this machine's network. If it runs in a pod, ${SET_PULL}.`
  );
}

const REFUSED_LOOPBACK = /dial tcp (\[::1\]|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost):(\d+): connect: connection refused/;
const HTTP_TO_HTTPS = /server gave HTTP response to HTTPS client/;

// go-containerregistry's errors quote the URL it asked: `Get "http://172.18.0.3:5000/v2/": dial tcp ...`.
const UNREACHABLE =
  /(?:Get|Head|GET|HEAD) "?(https?):\/\/([^/"\s]+)\/v2\/[^"\s]*"?: (dial tcp [^\n]*?: (connect: (?:connection refused|no route to host|network is unreachable|connection timed out)|i\/o timeout)|dial tcp: lookup [^\n]*?: (no such host|i\/o timeout|server misbehaving)|context deadline exceeded|net\/http: TLS handshake timeout|EOF|read: connection reset by peer)/;

/** A hint for a fetch error that points at the registry address; undefined when none applies. */
export function registryHint(text: string): string | undefined {
  const refused = REFUSED_LOOPBACK.exec(text);
  if (refused) {
    return (
      `hint: kapp-controller could not connect to ${refused[1]}:${refused[2]}, a localhost registry. Inside the ` +
      `kapp-controller pod localhost is the pod itself, so a registry on the host is not there; ${SET_PULL}.`
    );
  }
  if (HTTP_TO_HTTPS.test(text)) {
    return (
      'hint: the registry speaks plain HTTP, and kapp-controller (go-containerregistry) uses plain HTTP only for localhost, ' +
      'loopback, *.local and RFC1918 addresses: give the cluster the registry by its IP address (--cluster-registry, input ' +
      "cluster-registry; with kind, the registry container's IP on the kind network), not by a host name, or serve it over TLS."
    );
  }
  const unreachable = UNREACHABLE.exec(text);
  if (unreachable) {
    const [, scheme, host] = unreachable;
    const cause = unreachable[4] ?? unreachable[5] ?? unreachable[3]!;
    return (
      `hint: kapp-controller could not reach the registry ${host} (${scheme}://${host}/v2/: ${cause.replace(/^dial tcp.*?: /, '')}): ` +
      `the registry is down, or not reachable from the cluster's pods at that address. Check that it runs ` +
      "(kind mode: the run's registry container, <cluster>-registry) and answers there; the bundle's address is the Package's " +
      'spec.template.spec.fetch (--cluster-registry, input cluster-registry, when the cluster reaches the registry at another address).'
    );
  }
  return undefined;
}

/**
 * Registries known to be gone: an image there never pulls again. projects.registry.vmware.com was
 * decommissioned by its owner in 2024; TCE's packages and the TKG 1.x BOMs name it.
 */
export const GONE_REGISTRIES: Record<string, string> = {
  'projects.registry.vmware.com': 'decommissioned by its owner in 2024 (TCE\'s packages and the TKG 1.x BOMs name it)',
};

/** The registry host of an image reference (`docker.io` for a bare name). Pure. */
export function imageRegistry(image: string): string {
  const first = image.split('/')[0]!;
  return image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : 'docker.io';
}

/**
 * A hint for images that cannot be pulled because their registry is gone; undefined when none
 * of `images` is on one. Names what a user can change: the images are the package's own (its
 * bundle: config/ and .imgpkg/images.yml), and in bootstrap mode the BOM's (tkg-custom-image-repository).
 */
export function goneRegistryHint(images: string[]): string | undefined {
  const gone = [...new Set(images.filter((i) => GONE_REGISTRIES[imageRegistry(i)]))];
  if (!gone.length) return undefined;
  const hosts = [...new Set(gone.map(imageRegistry))];
  return (
    `hint: ${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} on ${hosts.map((h) => `${h}, ${GONE_REGISTRIES[h]}`).join('; ')}: ` +
    'nothing pulls from there any more, and waiting will not help. These images are named by the package itself: point them at ' +
    "a mirror that holds them in the version folder's bundle (config/ and .imgpkg/images.yml, or what your push-command " +
    'builds; with lock-images, kbld locks the references the config names) and push again. In bootstrap mode, TKG\'s own ' +
    'images (the BOM\'s: kapp-controller, the core packages) come from tkg-custom-image-repository (--tkg-custom-image-repository, ' +
    'TKG_CUSTOM_IMAGE_REPOSITORY), which does not change the images of the dev bundle devpkg pushes.'
  );
}
