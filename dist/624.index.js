export const id = 624;
export const ids = [624];
export const modules = {

/***/ 624:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   run: () => (/* binding */ run)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(3916);

async function run(_ctx) {
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .DevpkgError */ .y('mode "kind" is not available yet in this version of devpkg; use mode plan or detect');
}


/***/ })

};
