export const id = 791;
export const ids = [791];
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

/***/ 9791:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  runPost: () => (/* binding */ runPost)
});

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(1455);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(3916);
;// CONCATENATED MODULE: ./src/cleanup.ts


const CLEANUP_STATE = 'devpkg-cleanup';
/** Keeps the list in memory and mirrors it to action state (or nowhere, for the CLI). */
class CleanupList {
    host;
    items = [];
    constructor(host) {
        this.host = host;
    }
    record(item) {
        this.items.push(item);
        this.host?.saveState(CLEANUP_STATE, JSON.stringify(this.items));
    }
    /** Forgets an item that was removed in the normal course of the run. */
    done(item) {
        const i = this.items.findIndex((x) => JSON.stringify(x) === JSON.stringify(item));
        if (i >= 0)
            this.items.splice(i, 1);
        this.host?.saveState(CLEANUP_STATE, JSON.stringify(this.items));
    }
    list() {
        return [...this.items];
    }
    static fromState(text) {
        if (!text)
            return [];
        try {
            const parsed = JSON.parse(text);
            return Array.isArray(parsed) ? parsed : [];
        }
        catch {
            return [];
        }
    }
}
async function handlerFor(item) {
    switch (item.kind) {
        case 'temp-dir':
            return async (it) => (0,promises_.rm)(it.path, { recursive: true, force: true });
        case 'providers-backup':
            return (await __webpack_require__.e(/* import() */ 982).then(__webpack_require__.bind(__webpack_require__, 1982))).cleanupProviders;
        default:
            return (await __webpack_require__.e(/* import() */ 430).then(__webpack_require__.bind(__webpack_require__, 8430))).cleanupClusterItem;
    }
}
/**
 * Undoes items newest first. Never throws: a failed cleanup is a warning
 * (the thing may already be gone), so a post step never fails the job.
 */
async function runCleanup(items, exec, log) {
    for (const item of [...items].reverse()) {
        try {
            const handler = await handlerFor(item);
            await handler(item, exec, log.info);
            log.info(`cleaned up ${describe(item)}`);
        }
        catch (err) {
            log.warning(`could not clean up ${describe(item)}: ${(0,errors/* errorMessage */.gJ)(err)}`);
        }
    }
}
function describe(item) {
    switch (item.kind) {
        case 'temp-dir':
            return `temporary folder ${item.path}`;
        case 'kind-cluster':
            return `kind cluster ${item.name}`;
        case 'docker-container':
            return `container ${item.name}`;
        case 'docker-network-disconnect':
            return `container ${item.container} on network ${item.network}`;
        case 'management-cluster':
            return `management cluster ${item.name}`;
        case 'providers-backup':
            return `providers folder ${item.providersDir} (restored from ${item.backupDir})`;
        case 'kubernetes-object':
            return `${item.objectKind} ${item.namespace ? `${item.namespace}/` : ''}${item.name}`;
    }
}

// EXTERNAL MODULE: ./src/tools/exec.ts
var exec = __webpack_require__(2122);
;// CONCATENATED MODULE: ./src/post.ts


/** The action's post step: remove what main recorded. Warns, never fails. */
async function runPost() {
    const core = await __webpack_require__.e(/* import() */ 421).then(__webpack_require__.bind(__webpack_require__, 6421));
    const items = CleanupList.fromState(core.getState(CLEANUP_STATE));
    if (items.length === 0)
        return;
    await core.group('devpkg cleanup', () => runCleanup(items, exec/* execTool */.w, { info: (m) => core.info(m), warning: (m) => core.warning(m) }));
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
