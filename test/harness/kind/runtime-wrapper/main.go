// Command devpkg-runc is the OCI runtime the kind harness registers with dockerd as its default.
//
// On a machine whose capability bounding set lacks some capabilities (CAP_SYS_RESOURCE on ours),
// runc fails to start a --privileged container ("unable to apply caps: operation not
// permitted"), because --privileged asks for every capability, and fails to set rlimits above
// the hard limits. Before `runc create|run` (the bundle's config.json) and `runc exec` (the
// --process file) this wrapper removes every capability not in its own CapBnd and lowers the
// requested rlimits to its own hard limits, then execs the real runc with the same arguments.
// Every other call is passed through untouched.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// realRuncCandidates are tried in order unless DEVPKG_RUNC names the runtime to exec.
var realRuncCandidates = []string{"/usr/sbin/runc", "/usr/bin/runc"}

// globalFlagsWithValue are runc's global options that take a separate value.
var globalFlagsWithValue = map[string]bool{
	"--root": true, "--log": true, "--log-format": true, "--criu": true, "--rootless": true,
}

// target finds the subcommand and the file it reads the process from: the bundle's config.json
// for create/run, the --process file for exec. file is "" when there is nothing to edit.
func target(args []string, cwd string) (sub string, file string, isConfig bool) {
	i := 0
	for i < len(args) {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		if globalFlagsWithValue[a] {
			i++
		}
		i++
	}
	if i >= len(args) {
		return "", "", false
	}
	sub = args[i]
	rest := args[i+1:]
	value := func(names ...string) (string, bool) {
		for j := 0; j < len(rest); j++ {
			for _, n := range names {
				if rest[j] == n && j+1 < len(rest) {
					return rest[j+1], true
				}
				if strings.HasPrefix(rest[j], n+"=") {
					return strings.TrimPrefix(rest[j], n+"="), true
				}
			}
		}
		return "", false
	}
	switch sub {
	case "create", "run":
		bundle, ok := value("--bundle", "-b")
		if !ok {
			bundle = cwd
		}
		return sub, filepath.Join(bundle, "config.json"), true
	case "exec":
		if p, ok := value("--process", "-p"); ok {
			return sub, p, false
		}
	}
	return sub, "", false
}

func capBnd() (uint64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("no CapBnd line in /proc/self/status")
}

func hardLimit(resource int) (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(resource, &r); err != nil {
		return 0, false
	}
	return r.Max, true
}

// rewrite clamps the process in file (a whole config.json when isConfig) and writes it back.
func rewrite(file string, isConfig bool, lim Limits) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	proc := doc
	if isConfig {
		p, ok := doc["process"].(map[string]any)
		if !ok {
			return nil, nil
		}
		proc = p
	}
	changes, err := clampProcess(proc, lim)
	if err != nil || len(changes) == 0 {
		return changes, err
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	tmp := file + ".devpkg-runc.tmp"
	if err := os.WriteFile(tmp, out, st.Mode().Perm()); err != nil {
		return nil, err
	}
	return changes, os.Rename(tmp, file)
}

func realRunc() (string, error) {
	if p := os.Getenv("DEVPKG_RUNC"); p != "" {
		return p, nil
	}
	for _, p := range realRuncCandidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("no runc found (tried %s; set DEVPKG_RUNC)", strings.Join(realRuncCandidates, ", "))
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "devpkg-runc: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	runc, err := realRunc()
	if err != nil {
		fail("%v", err)
	}
	cwd, _ := os.Getwd()
	if _, file, isConfig := target(os.Args[1:], cwd); file != "" {
		bnd, err := capBnd()
		if err != nil {
			fail("reading the capability bounding set: %v", err)
		}
		if _, err := rewrite(file, isConfig, Limits{CapBnd: bnd, Hard: hardLimit}); err != nil {
			fail("clamping %s: %v", file, err)
		}
	}
	argv := append([]string{runc}, os.Args[1:]...)
	if err := syscall.Exec(runc, argv, os.Environ()); err != nil {
		fail("exec %s: %v", runc, err)
	}
}
