// The workload image the kind tests build: a static Go binary that waits, as the image's only
// file, in a tar archive that `docker import` takes as the image's root.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A ustar archive holding one file. Pure. */
export function tarOfOneFile(name: string, data: Buffer, mode: number): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, 'ascii');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0');
  field(0, 100, name);
  field(100, 8, octal(mode, 8));
  field(108, 8, octal(0, 8));
  field(116, 8, octal(0, 8));
  field(124, 12, octal(data.length, 12));
  field(136, 12, octal(Math.floor(Date.now() / 1000), 12));
  field(148, 8, '        ');
  field(156, 1, '0');
  field(257, 6, 'ustar');
  field(263, 2, '00');
  let sum = 0;
  for (const b of header) sum += b;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  const pad = Buffer.alloc((512 - (data.length % 512)) % 512);
  return Buffer.concat([header, data, pad, Buffer.alloc(1024)]);
}

/** Builds the waiting binary in `dir`/app and writes `dir`/web-app.tar (its root: /app). Returns the tar. */
export function buildWorkloadTar(dir: string): string {
  const app = join(dir, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'go.mod'), 'module webapp\n\ngo 1.21\n');
  writeFileSync(join(app, 'main.go'), 'package main\n\nimport "time"\n\nfunc main() {\n\tfor {\n\t\ttime.Sleep(time.Hour)\n\t}\n}\n');
  execFileSync('go', ['build', '-trimpath', '-o', join(app, 'app'), '.'], { cwd: app, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' } });
  const tar = join(dir, 'web-app.tar');
  writeFileSync(tar, tarOfOneFile('app', readFileSync(join(app, 'app')), 0o755));
  return tar;
}

/**
 * The kind tests' package content: namespace web and a Deployment running the workload image
 * (`web-app`, resolved by kbld from the bundle's images lock). `flavour` tells the released and the
 * dev content apart; `extra` is appended (more documents); `unscopedLabels` sets kapp's
 * disable-default-label-scoping-rules (bootstrap: the released install's selector stays valid).
 */
export function webDeployment(flavour: string, o: { extra?: string; unscopedLabels?: boolean } = {}): string {
  const annotations = o.unscopedLabels ? '  annotations:\n    kapp.k14s.io/disable-default-label-scoping-rules: ""\n' : '';
  return `apiVersion: v1
kind: Namespace
metadata:
  name: web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: web
${annotations}spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        devpkg.test/flavour: ${flavour}
    spec:
      containers:
      - name: web
        image: web-app
${o.extra ?? ''}`;
}
