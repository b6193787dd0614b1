package main

import (
	"cmp"
	"runtime/debug"
	"strings"
)

// version says which hotkeys this is, from what the Go toolchain recorded
// in the binary: the module version `go install …@vX` stamps, or for a
// build from a checkout the commit, its time and whether the tree had
// changes; and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "hotkeys (no build information: built without module support)"
	}
	return versionOf(info)
}

// versionOf words info.
func versionOf(info *debug.BuildInfo) string {
	v := "hotkeys " + cmp.Or(info.Main.Version, "(devel)")
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var parts []string
	if rev := settings["vcs.revision"]; rev != "" {
		commit := "commit " + rev[:min(12, len(rev))]
		if t := settings["vcs.time"]; t != "" {
			commit += " of " + t
		}
		if settings["vcs.modified"] == "true" {
			commit += ", with changes"
		}
		parts = append(parts, commit)
	}
	parts = append(parts, info.GoVersion)
	return v + " (" + strings.Join(parts, ", ") + ")"
}
