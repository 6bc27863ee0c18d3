import { missingKubeconfig } from './kubeconfig.js';

describe('missingKubeconfig: the places client-node reads the default kubeconfig from', () => {
  const at = (...files: string[]) => (f: string) => files.includes(f);
  const none = 'no kubeconfig found (looked at --kubeconfig / $KUBECONFIG / ~/.kube/config)';
  const fix = "give --kubeconfig FILE, or set KUBECONFIG to the cluster's kubeconfig";
  test.each<[string, NodeJS.ProcessEnv, (f: string) => boolean, string | undefined]>([
    ['~/.kube/config', { HOME: '/h' }, at('/h/.kube/config'), undefined],
    ['$KUBECONFIG', { HOME: '/h', KUBECONFIG: '/k' }, at('/k'), undefined],
    ['one of $KUBECONFIG files', { KUBECONFIG: '/a:/b' }, at('/b'), undefined],
    ['a pod service account', {}, at('/var/run/secrets/kubernetes.io/serviceaccount/token'), undefined],
    ['nothing', { HOME: '/h' }, at(), `${none}; ${fix}`],
    ['no HOME', {}, at('/h/.kube/config'), `${none}; ${fix}`],
    // As kubectl: $KUBECONFIG replaces ~/.kube/config, it does not add to it.
    ['$KUBECONFIG of missing files', { HOME: '/h', KUBECONFIG: '/a:/b' }, at('/h/.kube/config'), `${none}: $KUBECONFIG names /a, /b, which do not exist; ${fix}`],
    ['an empty $KUBECONFIG is unset', { HOME: '/h', KUBECONFIG: '' }, at('/h/.kube/config'), undefined],
  ])('%s', (_name, env, exists, want) => {
    expect(missingKubeconfig('--kubeconfig', env, exists, 'linux')).toBe(want);
  });

  test('names the input in the action', () => {
    expect(missingKubeconfig('input kubeconfig', {}, () => false, 'linux')).toMatch(/^no kubeconfig found \(looked at input kubeconfig \/ \$KUBECONFIG/);
  });
});
