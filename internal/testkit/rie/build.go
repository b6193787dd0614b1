package rie

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Package is the RIE's command, pinned as a tool in go.mod.
const Package = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"

// Build builds the RIE that go.mod pins into dir, as `make rie` does
// (without cgo, so the binary runs anywhere), and returns its path. It runs
// the go command in the current directory, which must be inside this module.
func Build(dir string) (string, error) {
	out := filepath.Join(dir, "aws-lambda-rie")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, Package)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("rie: go build %s: %w\n%s", Package, err, msg)
	}
	return out, nil
}
