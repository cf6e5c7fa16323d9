package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelfContained: only the plain `version` command line runs without the process's guards.
func TestSelfContained(t *testing.T) {
	for _, tc := range []struct {
		argv0 string
		args  []string
		want  bool
	}{
		{"mvpctl", []string{"version"}, true},
		{"/usr/local/bin/mvpctl", []string{"version", "-o", "json"}, true},
		{"kubectl-mvp", []string{"version"}, true},
		{"kubectl_complete-mvp", []string{"version"}, false}, // __complete version: completes the kubeconfig's names
		{"mvpctl", []string{"--kubeconfig", "k", "version"}, false},
		{"mvpctl", []string{"routes"}, false},
		{"mvpctl", []string{"__complete", "version"}, false},
		{"mvpctl", []string{"help", "version"}, false},
		{"mvpctl", []string{"versions"}, false},
		{"mvpctl", nil, false},
	} {
		if got := selfContained(tc.argv0, tc.args); got != tc.want {
			t.Errorf("selfContained(%q, %q) = %v, want %v", tc.argv0, tc.args, got, tc.want)
		}
	}
}

// TestVersionRunsNoCredentialPlugin: `mvpctl version`, which runs without the stderr guard and
// the signal handler (selfContained), never loads the kubeconfig, so a credential plugin cannot write to its
// stderr. Should version ever read the kubeconfig, this fails: give it the guard back.
func TestVersionRunsNoCredentialPlugin(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "plugin-ran")
	kc, _ := execPluginKubeconfig(t, dir, "touch "+ran+"\necho 'debug: SECRET_ENV=hunter2-plugin-secret' >&2\nexit 1\n")
	for _, args := range [][]string{
		{"version"},
		{"version", "-o", "json", "--kubeconfig", kc, "--context", "ctx", "-v", "9"},
		{"version", "-o", "yaml", "--kubeconfig", kc},
	} {
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%q: %v", args, err)
		}
		if stderr.Len() > 0 || !strings.Contains(stdout.String(), "v1alpha2") {
			t.Errorf("%q: stdout %q, stderr %q", args, stdout.String(), stderr.String())
		}
		if _, err := os.Stat(ran); err == nil {
			t.Fatalf("%q ran the kubeconfig's credential plugin", args)
		}
	}
	// The same kubeconfig does run the plugin for a command that reads it: the test can fail.
	cmd := exec.Command(binary(t), "routes", "--kubeconfig", kc, "--timeout", "2s")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	_ = cmd.Run()
	if _, err := os.Stat(ran); err != nil || strings.Contains(stderr.String(), "hunter2") {
		t.Errorf("routes: the plugin did not run (%v), or its stderr was shown: %q", err, stderr.String())
	}
}
