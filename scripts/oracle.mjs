#!/usr/bin/env node
// An independent oracle of which package versions a commit touches, to check devpkg against real
// repositories (docs/development.md, "Checking detection against real repositories").
//
//   node scripts/oracle.mjs <clone> [--commits N] [--rev REV] [--scope SUBDIR] [--devpkg dist/cli.js]
//                           [--command detect|plan] [--oracle-only] [--json] [-- extra devpkg flags]
//
// For each of the last N first-parent commits C of REV (default HEAD), it reads the two trees
// (C^ and C) with git itself and decides, from the files alone and without any of devpkg's code:
//   - the package versions C touches: a version whose content differs between the two trees.
//     Content is the set of (path inside the package, blob) of its files, except that Package,
//     PackageMetadata and PackageBuild YAML is compared parsed (so comments and key order do not
//     count) and Markdown never counts (devpkg's default ignore). A pure rename of a file that
//     keeps its place inside the package (or a Package moved to another file) changes nothing;
//     a bundle or config file change does.
//   - the versions C removes: present in C^, absent in C.
// Three forms of package, each recognised by its own evidence in each tree:
//   kctrl       a folder holding package-build.yml AND package-resources.yml; the package is the
//               PackageBuild's metadata.name; its content is those two files (parsed), vendir*.yml,
//               and the files under its ytt/kbld template paths and export includePaths.
//               Its version is not in git (devpkg prints the released one), so it is compared by
//               name only.
//   tce         <...>/packages/<name>/<version>/ holding package.yaml and a bundle/ folder; the
//               content is every file of the folder; <...>/packages/<name>/metadata.yaml changed
//               alone marks the highest version.
//   repository  any other YAML file below a folder named packages/ holding Package documents,
//               keyed by spec.refName and spec.version (named by the refName's first label); a
//               PackageMetadata changed alone marks the refName's highest version.
// --scope SUBDIR reads only the files below SUBDIR (a monorepo: devpkg gets --repo <clone>/SUBDIR).
// Then, unless --oracle-only, it runs `devpkg <command> --repo <clone>[/SUBDIR] --base C^ --head C --json`
// and prints, per commit, whether the two agree, and the disagreements with the command to
// reproduce each. Exit 0 when every commit agrees, 1 when one does not, 2 for bad usage.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const YAML_FILE = /\.ya?ml$/i;
const IGNORED = /\.md$/i;
const PACKAGE_KINDS = new Set(['Package', 'PackageMetadata']);

// ---------------------------------------------------------------- pure logic

/** kapp-controller's order of versions: semver, then build metadata (none lowest; numeric parts
 *  numerically, other parts byte-wise, a longer list of equal parts higher). */
export function compareVersions(a, b) {
  const pa = splitVersion(a);
  const pb = splitVersion(b);
  const core = compareCore(pa, pb);
  if (core !== 0) return core;
  return compareIdentifiers(pa.build, pb.build, true);
}

function splitVersion(v) {
  const s = String(v).replace(/^v/, '');
  const plus = s.indexOf('+');
  const main = plus < 0 ? s : s.slice(0, plus);
  const build = plus < 0 ? [] : s.slice(plus + 1).split('.');
  const dash = main.indexOf('-');
  const nums = (dash < 0 ? main : main.slice(0, dash)).split('.').map((n) => Number(n));
  const pre = dash < 0 ? [] : main.slice(dash + 1).split('.');
  return { nums, pre, build };
}

function compareCore(a, b) {
  for (let i = 0; i < 3; i++) {
    const d = (a.nums[i] ?? 0) - (b.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  return compareIdentifiers(a.pre, b.pre, false);
}

function compareIdentifiers(a, b, emptyLowest) {
  if (emptyLowest && (a.length === 0 || b.length === 0)) return Math.sign(a.length - b.length);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const x = a[i];
    const y = b[i];
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) {
      const d = Number(x) - Number(y);
      if (d !== 0) return Math.sign(d);
    } else if (nx !== ny) {
      return nx ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** A value with every map's keys sorted, as JSON: equal for YAML that differs only in comments,
 *  key order or quoting. */
export function canonical(value) {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  }
  return v;
}

const firstLabel = (refName) => String(refName).split('.')[0];
const parentOf = (p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const join = (dir, p) => (dir === '' ? p : `${dir}/${p}`);
const under = (p, dir) => dir === '' || p === dir || p.startsWith(`${dir}/`);

/**
 * The packages of one tree. `files` maps every path to its blob id; `parse(path)` returns the
 * YAML documents of a file (null when it is not YAML that parses). Reads only what can be a
 * package: kctrl's two files, TCE's package.yaml and metadata.yaml, YAML under packages/.
 */
export function packagesOf(files, parse) {
  const kctrl = [];
  const tce = [];
  const repository = [];
  const paths = [...files.keys()];
  const kctrlDirs = paths
    .filter((p) => /(^|\/)package-build\.yml$/.test(p))
    .map(parentOf)
    .filter((d) => files.has(join(d, 'package-resources.yml')));
  const inKctrl = (p) => kctrlDirs.some((d) => under(p, d));
  for (const dir of kctrlDirs) {
    const build = (parse(join(dir, 'package-build.yml')) ?? []).find((d) => d?.kind === 'PackageBuild');
    if (!build?.metadata?.name) continue;
    const spec = build.spec?.template?.spec ?? {};
    const steps = spec.app?.spec?.template ?? [];
    const roots = [];
    for (const step of steps) {
      for (const tool of Object.values(step ?? {})) {
        for (const p of tool?.paths ?? []) if (p !== '-') roots.push(p);
      }
    }
    for (const e of spec.export ?? []) for (const p of e?.includePaths ?? []) roots.push(p);
    const norm = roots.map((r) => String(r).replace(/^\.\//, '').replace(/\/$/, ''));
    const content = new Map();
    for (const p of paths) {
      if (!under(p, dir) || IGNORED.test(p)) continue;
      const rel = dir === '' ? p : p.slice(dir.length + 1);
      const parsed = rel === 'package-build.yml' || rel === 'package-resources.yml';
      if (parsed) content.set(rel, canonical(parse(p)));
      else if (/^vendir[^/]*\.ya?ml$/.test(rel) || norm.some((r) => under(rel, r))) content.set(rel, files.get(p));
    }
    kctrl.push({ layout: 'kctrl', refName: build.metadata.name, name: firstLabel(build.metadata.name), version: '*', path: dir || '.', content });
  }
  // Version folders: a package.yaml under packages/<name>/<version>/ beside a bundle/ folder.
  // One pass groups every file under the folder that holds it (paths are walked up, not searched).
  const candidates = new Map();
  for (const p of paths) {
    const m = /^(?:(.*)\/)?packages\/([^/]+)\/([^/]+)\/package\.yaml$/.exec(p);
    if (m && !inKctrl(p)) candidates.set(parentOf(p), { name: m[2], version: m[3], files: [], bundle: false });
  }
  const owner = new Map();
  for (const p of paths) {
    for (let d = parentOf(p); d !== ''; d = parentOf(d)) {
      const c = candidates.get(d);
      if (!c) continue;
      c.files.push(p);
      if (p.startsWith(`${d}/bundle/`)) c.bundle = true;
      owner.set(p, d);
      break;
    }
  }
  const versionDirs = new Set();
  for (const [dir, c] of candidates) {
    if (!c.bundle) continue;
    versionDirs.add(dir);
    const content = new Map();
    for (const q of c.files) {
      if (IGNORED.test(q)) continue;
      const rel = q.slice(dir.length + 1);
      content.set(rel, rel === 'package.yaml' ? canonical(parse(q)) : files.get(q));
    }
    const pkg = (parse(join(dir, 'package.yaml')) ?? []).find((d) => d?.kind === 'Package');
    tce.push({ layout: 'tce', refName: pkg?.spec?.refName, name: c.name, version: c.version, path: dir, folder: parentOf(dir), content });
  }
  const tceFolders = new Set(tce.map((v) => v.folder));
  const metadata = [];
  for (const folder of tceFolders) {
    const file = join(folder, 'metadata.yaml');
    if (files.has(file)) metadata.push({ layout: 'tce', key: folder, name: folder.split('/').pop(), value: canonical(parse(file)) });
  }
  for (const p of paths) {
    if (!YAML_FILE.test(p) || !/(^|\/)packages\//.test(p) || inKctrl(p)) continue;
    if (versionDirs.has(owner.get(p)) || tceFolders.has(parentOf(p))) continue;
    for (const doc of parse(p) ?? []) {
      if (!doc || !PACKAGE_KINDS.has(doc.kind) || !String(doc.apiVersion ?? '').startsWith('data.packaging.carvel.dev/')) continue;
      if (doc.kind === 'Package' && doc.spec?.refName && doc.spec?.version !== undefined) {
        repository.push({ layout: 'repository', refName: doc.spec.refName, name: firstLabel(doc.spec.refName), version: String(doc.spec.version), path: p, content: canonical(doc) });
      } else if (doc.kind === 'PackageMetadata' && doc.metadata?.name) {
        metadata.push({ layout: 'repository', key: doc.metadata.name, name: firstLabel(doc.metadata.name), value: canonical(doc) });
      }
    }
  }
  return { kctrl, tce, repository, metadata };
}

// A kctrl or repository package is its refName (a changed refName is a removal and an addition,
// though the first label, devpkg's name for it, may stay); a TCE version its folder.
const keyOf = (p) => `${p.layout}:${p.layout === 'tce' ? p.name : p.refName}/${p.version}`;

function sameContent(a, b) {
  if (typeof a.content === 'string') return a.content === b.content;
  if (a.content.size !== b.content.size) return false;
  for (const [k, v] of a.content) if (b.content.get(k) !== v) return false;
  return true;
}

/** What going from tree `base` to tree `head` (each packagesOf's result) touches and removes. */
export function touched(base, head) {
  const all = (t) => [...t.kctrl, ...t.tce, ...t.repository];
  const before = new Map();
  for (const p of all(base)) before.set(keyOf(p), p);
  const after = new Map();
  for (const p of all(head)) after.set(keyOf(p), p);
  const changed = new Map();
  for (const [k, p] of after) {
    const old = before.get(k);
    if (!old || !sameContent(old, p)) changed.set(k, p);
  }
  const removed = [...before.entries()].filter(([k]) => !after.has(k)).map(([, p]) => p);
  const oldMeta = new Map(base.metadata.map((m) => [`${m.layout}:${m.key}`, m.value]));
  for (const m of head.metadata) {
    if (oldMeta.get(`${m.layout}:${m.key}`) === m.value) continue;
    const versions = all(head).filter((p) => p.layout === m.layout && (m.layout === 'tce' ? p.folder === m.key : p.refName === m.key));
    if (versions.some((p) => changed.has(keyOf(p)))) continue;
    const highest = versions.sort((a, b) => compareVersions(b.version, a.version))[0];
    if (highest) changed.set(keyOf(highest), highest);
  }
  const view = (p) => ({ layout: p.layout, name: p.name, version: p.version, path: p.path, refName: p.refName });
  const order = (a, b) => keyOf(a).localeCompare(keyOf(b));
  return { touched: [...changed.values()].sort(order).map(view), removed: removed.sort(order).map(view) };
}

const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** A kctrl package's released version from the tags reachable from the base: its own tags
 *  (`<refName>/v1.2.3`, `<name>-v1.2.3`) when it has any, else the repository's (`v1.2.3`,
 *  `1.2.3`); the highest in kapp-controller's order; `0.0.0` when none. */
export function releasedFromTags(tags, refName) {
  const name = firstLabel(refName);
  const own = [];
  const wide = [];
  for (const t of tags) {
    let rest = null;
    for (const prefix of [`${refName}/`, `${name}-`, `${name}/`]) if (t.startsWith(prefix)) rest = t.slice(prefix.length);
    const v = (rest ?? t).replace(/^v/, '');
    if (!SEMVER.test(v)) continue;
    (rest === null ? wide : own).push(v);
  }
  const pick = own.length ? own : wide;
  return pick.sort(compareVersions).at(-1) ?? '0.0.0';
}

/** The entries of devpkg's JSON, as `name/version` (name alone for a kctrl package the oracle
 *  knows, whose version devpkg takes from tags). */
export function compare(oracle, devpkg, kctrlNames, released = new Map()) {
  const label = (p) => (p.layout === 'kctrl' || kctrlNames.has(p.name) ? p.name : `${p.name}/${p.version}`);
  const asSet = (list) => new Set(list.map(label));
  const diff = (a, b) => [...a].filter((x) => !b.has(x)).sort();
  const ot = asSet(oracle.touched);
  const dt = asSet(devpkg.touched);
  const or = asSet(oracle.removed);
  const dr = asSet(devpkg.removed);
  const out = {
    onlyOracle: diff(ot, dt),
    onlyDevpkg: diff(dt, ot),
    removedOnlyOracle: diff(or, dr),
    removedOnlyDevpkg: diff(dr, or),
  };
  // A kctrl package both list: devpkg's version is the released one, which must come from the
  // tags the base can see.
  out.releasedDiffer = devpkg.touched
    .filter((p) => released.has(p.name) && ot.has(p.name) && released.get(p.name) !== p.version)
    .map((p) => `${p.name}: oracle ${released.get(p.name)}, devpkg ${p.version}`);
  // plan: a package the oracle lists is planned, from the head commit's files.
  const oracleRef = new Map(oracle.touched.map((p) => [label(p), p.refName]));
  out.plannedWithError = devpkg.touched.filter((p) => p.error && ot.has(label(p))).map((p) => `${label(p)}: ${p.error}`);
  out.refNameDiffer = devpkg.touched
    .filter((p) => p.refName && oracleRef.get(label(p)) && oracleRef.get(label(p)) !== p.refName)
    .map((p) => `${label(p)}: head commit ${oracleRef.get(label(p))}, devpkg ${p.refName}`);
  return { ...out, agree: Object.values(out).every((l) => l.length === 0) };
}

// ---------------------------------------------------------------- I/O

function git(repo, args, input) {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, input });
}

function treeFiles(repo, commit, scope) {
  const out = git(repo, ['ls-tree', '-r', '-z', '--full-tree', commit]);
  const files = new Map();
  for (const line of out.split('\0')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const [, type, oid] = line.slice(0, tab).split(' ');
    const path = line.slice(tab + 1);
    if (type === 'blob' && under(path, scope)) files.set(path, oid);
  }
  return files;
}

function makeParser(repo, files, yaml, cache) {
  return (path) => {
    const oid = files.get(path);
    if (!oid) return null;
    if (!cache.has(oid)) {
      let docs = null;
      try {
        const text = git(repo, ['cat-file', 'blob', oid]);
        docs = yaml.parseAllDocuments(text, { uniqueKeys: false }).map((d) => (d.errors.length ? null : d.toJS()));
      } catch {
        docs = null;
      }
      cache.set(oid, docs);
    }
    return cache.get(oid);
  };
}

function parseArgs(argv) {
  const opts = { commits: 30, rev: 'HEAD', scope: '', devpkg: resolve(HERE, '../dist/cli.js'), command: 'detect', oracleOnly: false, json: false, extra: [] };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--') { opts.extra = argv.slice(i + 1); break; }
    else if (a === '--commits') opts.commits = Number(value());
    else if (a === '--rev') opts.rev = value();
    else if (a === '--scope') opts.scope = value().replace(/^\.\/?/, '').replace(/\/+$/, '');
    else if (a === '--devpkg') opts.devpkg = resolve(value());
    else if (a === '--command') opts.command = value();
    else if (a === '--oracle-only') opts.oracleOnly = true;
    else if (a === '--json') opts.json = true;
    else if (a.startsWith('-')) throw new Error(`unknown flag ${a}`);
    else rest.push(a);
  }
  if (rest.length !== 1) throw new Error('give the path of one clone');
  if (!Number.isInteger(opts.commits) || opts.commits < 1) throw new Error('--commits must be a whole number above 0');
  if (!['detect', 'plan'].includes(opts.command)) throw new Error('--command is detect or plan');
  opts.repo = resolve(rest[0]);
  return opts;
}

function runDevpkg(opts, base, head) {
  const args = [opts.devpkg, opts.command, '--repo', opts.scope ? `${opts.repo}/${opts.scope}` : opts.repo, '--base', base, '--head', head, '--json', ...opts.extra];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28, cwd: opts.repo });
  const command = `(cd ${opts.repo} && node ${args.map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(' ')})`;
  let parsed = null;
  try {
    parsed = JSON.parse(r.stdout);
  } catch {
    parsed = null;
  }
  if (!parsed) return { error: (r.stderr || r.stdout).trim().split('\n')[0] || `exit ${r.status}`, status: r.status, command };
  const entries = (list) => (list ?? []).map((e) => (typeof e === 'string' ? { name: e.split('/')[0], version: e.split('/')[1] } : e));
  // detect and plan both print packages and removed; plan's entries carry refName and verdict.
  const packages = parsed.packages ?? [];
  const touchedList = entries(packages).map((p) => ({ name: p.name, version: p.version, refName: p.refName, error: p.verdict === 'error' ? p.error : undefined }));
  return { touched: touchedList, removed: entries(parsed.removed), status: r.status, problems: (parsed.problems ?? []).length, command };
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
    if (!existsSync(opts.repo)) throw new Error(`no folder ${opts.repo}`);
  } catch (e) {
    process.stderr.write(`oracle: ${e.message}\n`);
    process.exit(2);
  }
  const yaml = await import('yaml');
  const log = git(opts.repo, ['log', '--first-parent', '--format=%H%x09%P%x09%s', `-n${opts.commits}`, opts.rev]).trim().split('\n');
  const cache = new Map();
  const trees = new Map();
  const packagesAt = (commit) => {
    if (!trees.has(commit)) {
      const files = treeFiles(opts.repo, commit, opts.scope);
      trees.set(commit, packagesOf(files, makeParser(opts.repo, files, yaml, cache)));
    }
    return trees.get(commit);
  };
  const rows = [];
  for (const line of log) {
    const [head, parents, subject] = line.split('\t');
    const base = parents.split(' ')[0];
    if (!base) continue;
    const baseTree = packagesAt(base);
    const headTree = packagesAt(head);
    const oracle = touched(baseTree, headTree);
    const row = { commit: head.slice(0, 12), subject, oracle };
    if (!opts.oracleOnly) {
      const d = runDevpkg(opts, base, head);
      row.devpkg = d;
      if (d.error) row.result = { agree: false, error: d.error };
      else {
        const kctrlNames = new Set([...baseTree.kctrl, ...headTree.kctrl].map((p) => p.name));
        const tags = headTree.kctrl.length ? git(opts.repo, ['tag', '--merged', base]).split('\n').filter(Boolean) : [];
        const released = new Map(headTree.kctrl.map((p) => [p.name, releasedFromTags(tags, p.refName)]));
        row.result = compare(oracle, d, kctrlNames, released);
      }
    }
    rows.push(row);
    if (trees.size > 4) trees.delete(trees.keys().next().value);
  }
  const disagreements = rows.filter((r) => r.result && !r.result.agree);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ repo: opts.repo, commits: rows.length, agreed: rows.length - disagreements.length, rows }, null, 2)}\n`);
  } else {
    const show = (l) => (l.length ? l.map((p) => (p.layout === 'kctrl' ? p.name : `${p.name}/${p.version}`)).join(', ') : '-');
    for (const r of rows) {
      const verdict = !r.result ? '' : r.result.agree ? 'agree ' : 'DIFFER';
      process.stdout.write(`${verdict} ${r.commit} touched: ${show(r.oracle.touched)}; removed: ${show(r.oracle.removed)}  (${r.subject.slice(0, 60)})\n`);
      if (r.result && !r.result.agree) {
        if (r.result.error) process.stdout.write(`    devpkg failed: ${r.result.error}\n`);
        for (const k of ['onlyOracle', 'onlyDevpkg', 'removedOnlyOracle', 'removedOnlyDevpkg', 'releasedDiffer', 'plannedWithError', 'refNameDiffer']) {
          if (r.result[k]?.length) process.stdout.write(`    ${k}: ${r.result[k].join(', ')}\n`);
        }
        process.stdout.write(`    ${r.devpkg.command}\n`);
      }
    }
    if (!opts.oracleOnly) process.stdout.write(`${rows.length} commits, ${rows.length - disagreements.length} agreed\n`);
  }
  process.exit(disagreements.length ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    process.stderr.write(`oracle: ${e.message}\n`);
    process.exit(1);
  });
}
