package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// capNames are the Linux capabilities by number (linux/capability.h).
var capNames = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
	"CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK",
	"CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
	"CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE",
	"CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG",
	"CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

// rlimitNumbers maps OCI rlimit types to their resource numbers (asm-generic/resource.h).
var rlimitNumbers = map[string]int{
	"RLIMIT_CPU": 0, "RLIMIT_FSIZE": 1, "RLIMIT_DATA": 2, "RLIMIT_STACK": 3, "RLIMIT_CORE": 4,
	"RLIMIT_RSS": 5, "RLIMIT_NPROC": 6, "RLIMIT_NOFILE": 7, "RLIMIT_MEMLOCK": 8, "RLIMIT_AS": 9,
	"RLIMIT_LOCKS": 10, "RLIMIT_SIGPENDING": 11, "RLIMIT_MSGQUEUE": 12, "RLIMIT_NICE": 13,
	"RLIMIT_RTPRIO": 14, "RLIMIT_RTTIME": 15,
}

// allowedCaps returns the names of the capabilities set in a CapBnd mask. A capability whose
// number this table does not know is not named, so it is never kept.
func allowedCaps(mask uint64) map[string]bool {
	allowed := map[string]bool{}
	for i, name := range capNames {
		if mask&(1<<uint(i)) != 0 {
			allowed[name] = true
		}
	}
	return allowed
}

// Limits are the facts the clamp depends on: this process's capability bounding set and the hard
// limit of each rlimit resource.
type Limits struct {
	CapBnd uint64
	Hard   func(resource int) (uint64, bool)
}

// clampProcess edits an OCI process object (config.json's "process", or runc exec's --process
// file) in place: capability lists keep only what is in the bounding set, rlimits are lowered to
// the hard limits. It returns a description of every change.
func clampProcess(proc map[string]any, lim Limits) ([]string, error) {
	var changes []string
	allowed := allowedCaps(lim.CapBnd)
	if caps, ok := proc["capabilities"].(map[string]any); ok {
		sets := make([]string, 0, len(caps))
		for set := range caps {
			sets = append(sets, set)
		}
		sort.Strings(sets)
		for _, set := range sets {
			list, ok := caps[set].([]any)
			if !ok {
				continue
			}
			kept := make([]any, 0, len(list))
			for _, c := range list {
				name, _ := c.(string)
				if allowed[name] {
					kept = append(kept, c)
				} else {
					changes = append(changes, fmt.Sprintf("dropped %v from %s", c, set))
				}
			}
			caps[set] = kept
		}
	}
	if rl, ok := proc["rlimits"].([]any); ok {
		for _, r := range rl {
			m, ok := r.(map[string]any)
			if !ok {
				continue
			}
			typ, _ := m["type"].(string)
			res, known := rlimitNumbers[typ]
			if !known {
				continue
			}
			max, ok := lim.Hard(res)
			if !ok {
				continue
			}
			for _, key := range []string{"hard", "soft"} {
				v, ok := m[key].(json.Number)
				if !ok {
					continue
				}
				n, err := strconv.ParseUint(v.String(), 10, 64)
				if err != nil {
					return changes, fmt.Errorf("rlimit %s %s: %q is not a number", typ, key, v)
				}
				if n > max {
					m[key] = json.Number(strconv.FormatUint(max, 10))
					changes = append(changes, fmt.Sprintf("%s %s %s -> %d", typ, key, v, max))
				}
			}
		}
	}
	return changes, nil
}
