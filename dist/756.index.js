export const id = 756;
export const ids = [756];
export const modules = {

/***/ 3916:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   eb: () => (/* binding */ UsageError),
/* harmony export */   gJ: () => (/* binding */ errorMessage),
/* harmony export */   y: () => (/* binding */ DevpkgError)
/* harmony export */ });
/**
 * An error the user can act on. The message names the thing that is wrong and
 * what to do about it; `file`/`line` let the action turn it into an annotation.
 */
class DevpkgError extends Error {
    file;
    line;
    /** Process exit code when this reaches the CLI: 1 = a check failed, 2 = bad usage. */
    exitCode;
    constructor(message, opts = {}) {
        super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
        this.name = 'DevpkgError';
        this.file = opts.file;
        this.line = opts.line;
        this.exitCode = opts.exitCode ?? 1;
    }
}
/** Bad command-line usage or bad action input: exit code 2. */
class UsageError extends DevpkgError {
    constructor(message) {
        super(message, { exitCode: 2 });
        this.name = 'UsageError';
    }
}
function errorMessage(err) {
    if (err instanceof Error)
        return err.message;
    return String(err);
}


/***/ }),

/***/ 8756:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  runMain: () => (/* binding */ runMain)
});

;// CONCATENATED MODULE: ./src/action/host.ts
async function coreHost() {
    const core = await __webpack_require__.e(/* import() */ 421).then(__webpack_require__.bind(__webpack_require__, 6421));
    return {
        info: (m) => core.info(m),
        warning: (m, w) => core.warning(m, w ? { file: w.file, startLine: w.line, title: w.title } : undefined),
        error: (m, w) => core.error(m, w ? { file: w.file, startLine: w.line, title: w.title } : undefined),
        group: (name, fn) => core.group(name, fn),
        setOutput: (n, v) => core.setOutput(n, v),
        setSecret: (v) => core.setSecret(v),
        saveState: (n, v) => core.saveState(n, v),
        getState: (n) => core.getState(n),
        summary: async (md) => {
            if (!process.env.GITHUB_STEP_SUMMARY)
                return;
            await core.summary.addRaw(md, true).write();
        },
    };
}
/** A host that records everything; used by tests and by the CLI's --dry runs. */
class RecordingHost {
    logs = [];
    warnings = [];
    errors = [];
    outputs = {};
    secrets = [];
    state = {};
    summaries = [];
    info(m) {
        this.logs.push(m);
    }
    warning(message, where) {
        this.warnings.push({ message, where });
    }
    error(message, where) {
        this.errors.push({ message, where });
    }
    async group(name, fn) {
        this.logs.push(`::group::${name}`);
        try {
            return await fn();
        }
        finally {
            this.logs.push('::endgroup::');
        }
    }
    setOutput(n, v) {
        this.outputs[n] = v;
    }
    setSecret(v) {
        this.secrets.push(v);
    }
    saveState(n, v) {
        this.state[n] = v;
    }
    getState(n) {
        return this.state[n] ?? '';
    }
    async summary(md) {
        this.summaries.push(md);
    }
}

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(3024);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
;// CONCATENATED MODULE: ./src/action/context.ts


function readGithubContext(env) {
    const path = env.GITHUB_EVENT_PATH;
    let event = {};
    if (path) {
        try {
            event = JSON.parse((0,external_node_fs_.readFileSync)(path, 'utf8'));
        }
        catch (err) {
            throw new errors/* DevpkgError */.y(`GITHUB_EVENT_PATH ${path}: cannot read the event file: ${err.message}`);
        }
    }
    const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/');
    const eventName = env.GITHUB_EVENT_NAME ?? '';
    const pr = event.pull_request;
    let baseSha;
    let headSha;
    if (pr) {
        baseSha = pr.base?.sha;
        headSha = pr.head?.sha;
    }
    else if (eventName === 'push') {
        const before = event.before;
        // A new branch has before = 000...0: there is no base to diff against.
        baseSha = before && !/^0+$/.test(before) ? before : undefined;
        headSha = event.after ?? env.GITHUB_SHA;
    }
    return {
        eventName,
        event,
        sha: env.GITHUB_SHA ?? '',
        ref: env.GITHUB_REF ?? '',
        owner,
        repo,
        runId: env.GITHUB_RUN_ID ?? '0',
        runNumber: Number(env.GITHUB_RUN_NUMBER ?? '0') || 0,
        runAttempt: Number(env.GITHUB_RUN_ATTEMPT ?? '1') || 1,
        serverUrl: env.GITHUB_SERVER_URL ?? 'https://github.com',
        apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
        workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
        prNumber: pr?.number ?? event.number,
        baseSha,
        headSha,
    };
}
function runUrl(ctx) {
    return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/actions/runs/${ctx.runId}`;
}

// EXTERNAL MODULE: external "node:util"
var external_node_util_ = __webpack_require__(7975);
;// CONCATENATED MODULE: ./src/commands/io.ts


/**
 * util.parseArgs with devpkg's conventions: unknown flags and missing values are
 * usage errors (exit 2) that name the flag; `--help` is always accepted.
 */
function parseFlags(argv, options, allowPositionals = false) {
    try {
        return parseArgs({
            args: argv,
            options: { help: { type: 'boolean', short: 'h' }, ...options },
            allowPositionals,
            strict: true,
        });
    }
    catch (err) {
        throw new UsageError(err.message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
    }
}
function requireFlag(value, flag, command) {
    if (value === undefined || value === '') {
        throw new UsageError(`devpkg ${command}: ${flag} is required (see devpkg ${command} --help)`);
    }
    return value;
}
/** Parses durations such as "90", "90s", "5m", "1h30m" into milliseconds. */
function parseDuration(text, flag) {
    const t = text.trim();
    if (/^\d+$/.test(t))
        return Number(t) * 1000;
    const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
    let total = 0;
    let matched = 0;
    for (let m = re.exec(t); m; m = re.exec(t)) {
        const n = Number(m[1]);
        total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60000 : n * 3600000;
        matched = re.lastIndex;
    }
    if (matched !== t.length || t.length === 0) {
        throw new errors/* UsageError */.eb(`${flag}: "${text}" is not a duration; use e.g. 90s, 5m or 1h`);
    }
    return total;
}

;// CONCATENATED MODULE: ./src/inputs.ts


const MODES = ['plan', 'detect', 'kind', 'cluster', 'bootstrap', 'report'];
function bool(get, name, dflt) {
    const v = get(name).trim().toLowerCase();
    if (v === '')
        return dflt;
    if (['true', 'yes', '1', 'on'].includes(v))
        return true;
    if (['false', 'no', '0', 'off'].includes(v))
        return false;
    throw new errors/* UsageError */.eb(`input ${name}: "${get(name)}" is not a boolean; use true or false`);
}
function list(text) {
    return text
        .split(/[\n,]/)
        .map((s) => s.trim())
        .filter((s) => s !== '' && !s.startsWith('#'));
}
/** Pure: builds Inputs from a getter, so tests need no toolkit. */
function parseInputs(get) {
    const s = (name, dflt = '') => get(name).trim() || dflt;
    const mode = s('mode', 'plan');
    if (!MODES.includes(mode)) {
        throw new errors/* UsageError */.eb(`input mode: "${mode}" is not one of ${MODES.join(', ')}`);
    }
    const dur = (name, dflt) => parseDuration(s(name, dflt), `input ${name}`);
    const packages = list(s('packages'));
    for (const p of packages) {
        if (!/^[^/\s]+\/[^/\s]+$/.test(p)) {
            throw new errors/* UsageError */.eb(`input packages: "${p}" is not NAME/VERSION (e.g. antrea/1.5.3)`);
        }
    }
    const registry = s('registry');
    if (registry.includes('://')) {
        throw new errors/* UsageError */.eb(`input registry: "${registry}" must be HOST[:PORT][/PATH] without a scheme`);
    }
    return {
        mode,
        workingDirectory: s('working-directory', '.'),
        packagesDir: s('packages-dir', 'addons/packages').replace(/\/+$/, ''),
        packages,
        all: bool(get, 'all', false),
        baseRef: s('base-ref'),
        headRef: s('head-ref'),
        ignore: list(s('ignore', '**/*.md')),
        registry,
        registryUsername: s('registry-username'),
        registryPassword: get('registry-password'),
        refName: s('ref-name'),
        packageInstall: s('package-install'),
        kubeconfig: s('kubeconfig'),
        pushCommand: s('push-command'),
        lockImages: bool(get, 'lock-images', false),
        settleMs: dur('settle', '60s'),
        timeoutMs: dur('timeout', '10m'),
        assert: get('assert'),
        devVersion: s('dev-version'),
        githubToken: get('github-token').trim(),
        comment: bool(get, 'comment', true),
        commentHeader: s('comment-header', 'devpkg'),
        kindVersion: s('kind-version'),
        kindNodeImage: s('kind-node-image'),
        kappControllerVersion: s('kapp-controller-version'),
        imgpkgVersion: s('imgpkg-version'),
        tanzuCli: s('tanzu-cli'),
        tanzuCliUrl: s('tanzu-cli-url'),
        tanzuCliSha256: s('tanzu-cli-sha256'),
        tanzuDir: s('tanzu-dir'),
        clusterConfig: s('cluster-config'),
        addonType: s('addon-type'),
        bootstrapTimeoutMs: dur('bootstrap-timeout', '45m'),
        artifactName: s('artifact-name', 'devpkg-results'),
    };
}

// EXTERNAL MODULE: ./src/tools/exec.ts
var exec = __webpack_require__(2122);
;// CONCATENATED MODULE: ./src/main.ts





const MODE_MODULES = {
    plan: () => __webpack_require__.e(/* import() */ 317).then(__webpack_require__.bind(__webpack_require__, 2317)),
    detect: () => __webpack_require__.e(/* import() */ 541).then(__webpack_require__.bind(__webpack_require__, 5541)),
    kind: () => __webpack_require__.e(/* import() */ 624).then(__webpack_require__.bind(__webpack_require__, 624)),
    cluster: () => __webpack_require__.e(/* import() */ 626).then(__webpack_require__.bind(__webpack_require__, 8626)),
    bootstrap: () => __webpack_require__.e(/* import() */ 518).then(__webpack_require__.bind(__webpack_require__, 6518)),
    report: () => __webpack_require__.e(/* import() */ 84).then(__webpack_require__.bind(__webpack_require__, 2084)),
};
/** The action's main step: build Inputs, run the mode, fail once (STYLE.md 2). */
async function runMain() {
    const core = await __webpack_require__.e(/* import() */ 421).then(__webpack_require__.bind(__webpack_require__, 6421));
    const host = await coreHost();
    core.saveState('isPost', 'true');
    try {
        const inputs = parseInputs((name) => core.getInput(name));
        if (inputs.registryPassword)
            core.setSecret(inputs.registryPassword);
        if (inputs.githubToken)
            core.setSecret(inputs.githubToken);
        const github = readGithubContext(process.env);
        const mode = await MODE_MODULES[inputs.mode]();
        await mode.run({ inputs, github, host, exec: exec/* execTool */.w, env: process.env });
    }
    catch (err) {
        if (err instanceof errors/* DevpkgError */.y && err.file) {
            core.error(err.message, { file: err.file, startLine: err.line });
        }
        core.setFailed((0,errors/* errorMessage */.gJ)(err));
    }
}


/***/ }),

/***/ 2122:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   w: () => (/* binding */ execTool)
/* harmony export */ });
/* harmony import */ var node_child_process__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(1421);
/* harmony import */ var node_child_process__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_child_process__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(3916);


/**
 * Runs a program with an argv array, never through a shell. A missing binary
 * becomes a DevpkgError that names it and how to install it.
 */
const execTool = (cmd, args, opts = {}) => new Promise((resolve, reject) => {
    const env = { ...process.env };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
        if (v === undefined)
            delete env[k];
        else
            env[k] = v;
    }
    const child = (0,node_child_process__WEBPACK_IMPORTED_MODULE_0__.spawn)(cmd, [...args], { cwd: opts.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = opts.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
        }, opts.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (c) => {
        stdout += c;
        opts.onStdout?.(c);
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
        stderr += c;
        opts.onStderr?.(c);
    });
    child.on('error', (err) => {
        if (timer)
            clearTimeout(timer);
        if (err.code === 'ENOENT') {
            reject(new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .DevpkgError */ .y(`${cmd}: not found on PATH; install it or put it on PATH`, { cause: err }));
        }
        else {
            reject(new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .DevpkgError */ .y(`${cmd}: could not start: ${err.message}`, { cause: err }));
        }
    });
    child.on('close', (code, signal) => {
        if (timer)
            clearTimeout(timer);
        const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
        if (timedOut) {
            reject(new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .DevpkgError */ .y(`${cmd} ${args.join(' ')}: timed out after ${opts.timeoutMs} ms`));
        }
        else if (result.code !== 0 && !opts.allowFail) {
            const detail = (stderr.trim() || stdout.trim()).split('\n').slice(-20).join('\n');
            reject(new _errors_js__WEBPACK_IMPORTED_MODULE_1__/* .DevpkgError */ .y(`${cmd} ${args[0] ?? ''} failed (exit ${result.code}): ${detail}`));
        }
        else {
            resolve(result);
        }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
});


/***/ })

};
