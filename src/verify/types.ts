// Results moved to src/results.ts; this re-export stays for diagnostics.ts and the kind-mode
// integration test (edited on another branch). Point them at ../results.js and delete this file.
export * from '../results.js';
