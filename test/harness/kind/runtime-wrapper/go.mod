module devpkg.test/harness/runtime-wrapper

go 1.22
