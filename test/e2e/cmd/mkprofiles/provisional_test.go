package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const profiles = "../../../../pkg/profile/profiles"

func copyProfiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, pattern := range []string{"*.json", "provisional/*.json"} {
		files, err := filepath.Glob(filepath.Join(profiles, pattern))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", pattern, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dir, strings.TrimPrefix(f, profiles+"/"))
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(to, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// The provisional profile is derived again from its committed facts by every make profiles
// run, byte for byte; once its minor is recorded, the run removes it and its facts, with no
// code change.
func TestDeriveAll(t *testing.T) {
	dir := copyProfiles(t)
	embedded, err := os.ReadFile(filepath.Join(dir, "v1.38.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "v1.38.0.json")); err != nil {
		t.Fatal(err)
	}
	if err := deriveAll(dir); err != nil {
		t.Fatal(err)
	}
	derived, err := os.ReadFile(filepath.Join(dir, "v1.38.0.json"))
	if err != nil || !bytes.Equal(derived, embedded) {
		t.Fatalf("deriveAll did not write the embedded v1.38.0.json again (%v)", err)
	}

	// A recording of 1.38 arrives (here: the 1.37 one, renamed).
	base, err := os.ReadFile(filepath.Join(dir, "v1.37.2.json"))
	if err != nil {
		t.Fatal(err)
	}
	recorded := strings.NewReplacer(`"v1.37.2"`, `"v1.38.1"`, `"emulatedVersion": "1.37"`, `"emulatedVersion": "1.38"`).Replace(string(base))
	if err := os.WriteFile(filepath.Join(dir, "v1.38.1.json"), []byte(recorded), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := deriveAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"v1.38.0.json", "provisional/v1.38.json"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there once 1.38 is recorded (%v)", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "v1.38.1.json")); err != nil {
		t.Errorf("the recording is gone: %v", err)
	}
}
