module devpkg.example/hello

go 1.21
