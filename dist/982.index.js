export const id = 982;
export const ids = [982];
export const modules = {

/***/ 1982:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   cleanupProviders: () => (/* binding */ cleanupProviders)
/* harmony export */ });
/** Restores a providers folder from its backup (implemented with the bootstrap mode). */
async function cleanupProviders(_item, _exec, _log) {
    throw new Error('providers restore is not implemented yet');
}


/***/ })

};
