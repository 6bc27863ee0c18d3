/**
 * What a registry address means from inside the cluster, pure: an up-front warning for a pull
 * address the cluster probably cannot use, and a hint for the errors kapp-controller's fetch
 * gives for such addresses. kapp-controller fetches bundles itself (vendir/imgpkg,
 * go-containerregistry) from its pod: localhost there is the pod, and plain HTTP is used only for
 * localhost, loopback, *.local and RFC1918 addresses.
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
  return undefined;
}
