package templatetest

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildHotKeysFunction builds the function the way `sam build` does for
// BuildMethod: makefile (make build-<LogicalId> with ARTIFACTS_DIR set, from
// the directory of CodeUri) and checks that the artifact is what
// provided.al2023 runs: a static Linux executable named after the Handler,
// for the architecture the template declares, built without cgo and with
// the lambda.norpc tag.
func TestBuildHotKeysFunction(t *testing.T) {
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed: cannot build the function as sam build would")
	}
	s := deploy(t, readTemplate(t), nil)
	fn := mustResource(t, s, functionID)
	if md, _ := fn["Metadata"].(map[string]any); md["BuildMethod"] != "makefile" {
		t.Fatalf("%s Metadata.BuildMethod = %v, want makefile", functionID, md["BuildMethod"])
	}
	props := properties(fn)
	codeURI, _ := props["CodeUri"].(string)
	handler, _ := props["Handler"].(string)
	if props["Runtime"] != "provided.al2023" || handler != "bootstrap" {
		t.Fatalf("Runtime %v, Handler %v: want provided.al2023 and bootstrap", props["Runtime"], handler)
	}
	archs, _ := props["Architectures"].([]any)
	machines := map[any]elf.Machine{"arm64": elf.EM_AARCH64, "x86_64": elf.EM_X86_64}
	goarchs := map[any]string{"arm64": "arm64", "x86_64": "amd64"}
	if len(archs) != 1 || machines[archs[0]] == 0 {
		t.Fatalf("Architectures %v, want one of arm64, x86_64", archs)
	}

	artifacts := t.TempDir()
	cmd := exec.Command(makePath, "build-"+functionID, "ARTIFACTS_DIR="+artifacts)
	cmd.Dir = filepath.Join(repoRoot, codeURI)
	// sam passes its own environment; a developer's cross-compilation
	// settings must not leak into what the template promises.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOOS", "GOARCH", "CGO_ENABLED", "LAMBDA_GOARCH", "MAKEFLAGS", "MFLAGS", "MAKELEVEL":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build-%s: %v\n%s", functionID, err, out)
	}

	path := filepath.Join(artifacts, handler)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the build wrote no %s: %v", handler, err)
	}
	if st.Mode()&0o111 == 0 {
		t.Errorf("%s is not executable: %v", handler, st.Mode())
	}

	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("%s is not an ELF file: %v", handler, err)
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 || f.Machine != machines[archs[0]] || f.Type != elf.ET_EXEC {
		t.Errorf("%s is %v %v %v, want ELFCLASS64 %v ET_EXEC", handler, f.Class, f.Machine, f.Type, machines[archs[0]])
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s has a %v program header: it is dynamically linked", handler, p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s needs shared libraries %v", handler, libs)
	}

	info, err := buildinfo.ReadFile(path)
	if err != nil {
		t.Fatalf("%s has no Go build information: %v", handler, err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	want := map[string]string{"GOOS": "linux", "GOARCH": goarchs[archs[0]], "CGO_ENABLED": "0", "-tags": "lambda.norpc"}
	for k, v := range want {
		if settings[k] != v {
			t.Errorf("%s built with %s=%q, want %q", handler, k, settings[k], v)
		}
	}
	if info.Path != info.Main.Path+"/lambda" {
		t.Errorf("%s is %s, want the module's ./lambda", handler, info.Path)
	}
}
