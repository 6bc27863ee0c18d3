package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A bounding set with every capability but CAP_SYS_RESOURCE (24), as on our machines.
const bndWithoutSysResource = uint64(0x1fffeffffff)

func hard(limits map[int]uint64) func(int) (uint64, bool) {
	return func(r int) (uint64, bool) { v, ok := limits[r]; return v, ok }
}

func TestTarget(t *testing.T) {
	cases := []struct {
		args      []string
		sub, file string
		isConfig  bool
	}{
		{[]string{"--root", "/run/r", "--log", "l.json", "--log-format", "json", "create", "--bundle", "/b", "--pid-file", "p", "id"}, "create", "/b/config.json", true},
		{[]string{"--systemd-cgroup", "run", "-b=/x", "id"}, "run", "/x/config.json", true},
		{[]string{"create", "id"}, "create", "/cwd/config.json", true},
		{[]string{"--root", "/r", "exec", "--process", "/tmp/p.json", "--detach", "id"}, "exec", "/tmp/p.json", false},
		{[]string{"exec", "-t", "id", "sh"}, "exec", "", false},
		{[]string{"--root", "/r", "state", "id"}, "state", "", false},
		{[]string{"--version"}, "", "", false},
	}
	for _, c := range cases {
		sub, file, isConfig := target(c.args, "/cwd")
		if sub != c.sub || file != c.file || isConfig != c.isConfig {
			t.Errorf("target(%q) = %q %q %v, want %q %q %v", c.args, sub, file, isConfig, c.sub, c.file, c.isConfig)
		}
	}
}

func TestClampDropsCapabilitiesOutsideTheBoundingSet(t *testing.T) {
	var proc map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"capabilities":{
		"bounding":["CAP_CHOWN","CAP_SYS_RESOURCE","CAP_SYS_ADMIN"],
		"effective":["CAP_SYS_RESOURCE"],"ambient":[]}}`))
	dec.UseNumber()
	if err := dec.Decode(&proc); err != nil {
		t.Fatal(err)
	}
	changes, err := clampProcess(proc, Limits{CapBnd: bndWithoutSysResource, Hard: hard(nil)})
	if err != nil {
		t.Fatal(err)
	}
	caps := proc["capabilities"].(map[string]any)
	if got := caps["bounding"]; !reflect.DeepEqual(got, []any{"CAP_CHOWN", "CAP_SYS_ADMIN"}) {
		t.Errorf("bounding = %v", got)
	}
	if got := caps["effective"]; !reflect.DeepEqual(got, []any{}) {
		t.Errorf("effective = %v", got)
	}
	want := []string{"dropped CAP_SYS_RESOURCE from bounding", "dropped CAP_SYS_RESOURCE from effective"}
	if !reflect.DeepEqual(changes, want) {
		t.Errorf("changes = %q, want %q", changes, want)
	}
}

func TestClampLowersRlimitsToTheHardLimits(t *testing.T) {
	var proc map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"rlimits":[
		{"type":"RLIMIT_NOFILE","hard":1048576,"soft":1048576},
		{"type":"RLIMIT_NPROC","hard":100,"soft":50},
		{"type":"RLIMIT_CORE","hard":18446744073709551615,"soft":18446744073709551615}]}`))
	dec.UseNumber()
	if err := dec.Decode(&proc); err != nil {
		t.Fatal(err)
	}
	_, err := clampProcess(proc, Limits{Hard: hard(map[int]uint64{7: 524288, 6: 1000, 4: 18446744073709551615})})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(proc)
	want := `{"rlimits":[{"hard":524288,"soft":524288,"type":"RLIMIT_NOFILE"},{"hard":100,"soft":50,"type":"RLIMIT_NPROC"},{"hard":18446744073709551615,"soft":18446744073709551615,"type":"RLIMIT_CORE"}]}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestRewriteEditsOnlyWhatItMust(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.json")
	orig := `{"ociVersion":"1.0.2","process":{"capabilities":{"bounding":["CAP_KILL"]}},"root":{"path":"rootfs"}}`
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	changes, err := rewrite(file, true, Limits{CapBnd: bndWithoutSysResource, Hard: hard(nil)})
	if err != nil || len(changes) != 0 {
		t.Fatalf("changes %v err %v", changes, err)
	}
	if got, _ := os.ReadFile(file); string(got) != orig {
		t.Errorf("a config that needs no change was rewritten: %s", got)
	}
	if err := os.WriteFile(file, []byte(`{"process":{"capabilities":{"bounding":["CAP_KILL","CAP_SYS_RESOURCE"]}},"x":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := rewrite(file, true, Limits{CapBnd: bndWithoutSysResource, Hard: hard(nil)}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if string(got) != `{"process":{"capabilities":{"bounding":["CAP_KILL"]}},"x":1}` {
		t.Errorf("rewritten = %s", got)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", st.Mode())
	}
	if err := os.WriteFile(file, []byte(`{"process":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := rewrite(file, true, Limits{Hard: hard(nil)}); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a broken config.json gave %v, want an error naming the file", err)
	}
}
