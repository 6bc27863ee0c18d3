export const id = 581;
export const ids = [581];
export const modules = {

/***/ 5581:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   processIO: () => (/* binding */ processIO),
/* harmony export */   runCli: () => (/* binding */ runCli)
/* harmony export */ });
/* unused harmony exports COMMANDS, usage */
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);

// Commands load lazily so `devpkg select` never pays for the Kubernetes client.
const COMMANDS = {
    plan: { summary: 'what would be pushed and applied for the changed packages (no cluster)', load: () => __webpack_require__.e(/* import() */ 483).then(__webpack_require__.bind(__webpack_require__, 4483)) },
    detect: { summary: 'list the changed package versions between two refs', load: () => __webpack_require__.e(/* import() */ 403).then(__webpack_require__.bind(__webpack_require__, 2403)) },
    select: { summary: 'the version kapp-controller would install from a list of versions', load: () => __webpack_require__.e(/* import() */ 404).then(__webpack_require__.bind(__webpack_require__, 1404)) },
    derive: { summary: 'make the dev Package from a released Package', load: () => __webpack_require__.e(/* import() */ 191).then(__webpack_require__.bind(__webpack_require__, 1191)) },
    overlay: { summary: 'print the 04_user_customizations ytt file for a dev Package', load: () => __webpack_require__.e(/* import() */ 42).then(__webpack_require__.bind(__webpack_require__, 1042)) },
    push: { summary: 'push a bundle folder with imgpkg and print repo@sha256:...', load: () => __webpack_require__.e(/* import() */ 124).then(__webpack_require__.bind(__webpack_require__, 2124)) },
    dev: { summary: 'push, derive, apply and verify a package version on a running cluster', load: () => __webpack_require__.e(/* import() */ 765).then(__webpack_require__.bind(__webpack_require__, 5765)) },
    verify: { summary: 'wait until a PackageInstall runs the expected version, and say why not', load: () => __webpack_require__.e(/* import() */ 613).then(__webpack_require__.bind(__webpack_require__, 3613)) },
    bootstrap: { summary: 'prepare the tanzu providers and create a management cluster with the dev Package', load: () => __webpack_require__.e(/* import() */ 816).then(__webpack_require__.bind(__webpack_require__, 9816)) },
};
function usage() {
    const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
    const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
    return [
        'devpkg: prove that a Carvel package change is what kapp-controller installs',
        '',
        'Usage: devpkg <command> [flags]   (devpkg <command> --help for its flags)',
        '',
        'Commands:',
        ...lines,
        '',
        'Exit codes: 0 ok, 1 a check failed, 2 bad usage.',
    ].join('\n');
}
async function runCli(argv, io) {
    const [name, ...rest] = argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
        io.stdout(usage() + '\n');
        return name === undefined ? 2 : 0;
    }
    if (name === '--version') {
        io.stdout('devpkg 0.1.0\n');
        return 0;
    }
    const entry = COMMANDS[name];
    if (!entry) {
        io.stderr(`devpkg: unknown command "${name}"\n\n${usage()}\n`);
        return 2;
    }
    try {
        const mod = await entry.load();
        return await mod.run(rest, io);
    }
    catch (err) {
        const code = err instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .DevpkgError */ .y ? err.exitCode : 1;
        const where = err instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .DevpkgError */ .y && err.file ? `${err.file}${err.line ? `:${err.line}` : ''}: ` : '';
        io.stderr(`devpkg ${name}: ${where}${(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .errorMessage */ .gJ)(err)}\n`);
        if (!(err instanceof _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .DevpkgError */ .y) && process.env.DEVPKG_DEBUG && err instanceof Error)
            io.stderr(`${err.stack}\n`);
        return code;
    }
}
function processIO() {
    return {
        stdout: (t) => process.stdout.write(t),
        stderr: (t) => process.stderr.write(t),
        env: process.env,
        cwd: process.cwd(),
    };
}


/***/ }),

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


/***/ })

};
