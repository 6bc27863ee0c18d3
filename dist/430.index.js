export const id = 430;
export const ids = [430];
export const modules = {

/***/ 8430:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   cleanupClusterItem: () => (/* binding */ cleanupClusterItem)
/* harmony export */ });
/** Deletes clusters, containers and objects recorded by the cluster modes. */
async function cleanupClusterItem(item, _exec, _log) {
    throw new Error(`cleanup of ${item.kind} is not implemented yet`);
}


/***/ })

};
