package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompletion(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- {name: c1, cluster: {server: "https://192.0.2.1:6443"}}
contexts:
- {name: prod, context: {cluster: c1, user: u1}}
- {name: dev, context: {cluster: c1, user: u1}}
users:
- {name: u1, user: {token: x}}
current-context: prod
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	const noFile = ":4" // ShellCompDirectiveNoFileComp
	profiles := "v1.33.13\tKubernetes 1.33 profile, 61 resources\nv1.34.4\tKubernetes 1.34 profile, 66 resources\n" +
		"v1.35.4\tKubernetes 1.35 profile, 66 resources\nv1.36.3\tKubernetes 1.36 profile, 68 resources\n" +
		"v1.37.2\tKubernetes 1.37 profile, 72 resources\n" + noFile + "\n"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"explain", "--snapshot", "../../examples/skew.yaml", "--apiserver", ""}, "kas-a\tv1.37.1\nkas-b\tv1.36.3\n" + noFile + "\n"},
		{[]string{"explain", "--snapshot", skew, "--apiserver", "kas-"}, "kas-a\tv1.37.1\nkas-b\tv1.36.3\nkas-c\tv1.36.3 unreachable\n" + noFile + "\n"},
		{[]string{"probe", "--snapshot", skew, "--apiserver", "kas-a", "--apiserver", "kas-c"}, "kas-c\tv1.36.3 unreachable\n" + noFile + "\n"},
		{[]string{"discovery", "diff", "--snapshot", skew, "--apiserver", "kas-b"}, "kas-b\tv1.36.3\n" + noFile + "\n"},
		// No snapshot file: nothing, and never the cluster.
		{[]string{"explain", "--server", "https://192.0.2.1:6443", "--apiserver", ""}, noFile + "\n"},
		{[]string{"explain", "--snapshot", "-", "--apiserver", ""}, noFile + "\n"},
		{[]string{"explain", "--snapshot", "testdata/does-not-exist.yaml", "--apiserver", ""}, noFile + "\n"},
		{[]string{"explain", "-o", ""}, "text\ntable\njson\nyaml\nmermaid\ndot\n" + noFile + "\n"},
		{[]string{"routes", "-o", "w"}, "wide\n" + noFile + "\n"},
		{[]string{"version", "--output", ""}, "text\njson\nyaml\n" + noFile + "\n"},
		{[]string{"simulate", "upgrade", "--to", ""}, profiles},
		{[]string{"preflight", "--to", "1.36"}, "1.36.3\tKubernetes 1.36 profile, 68 resources\n" + noFile + "\n"},
		{[]string{"profiles", "show", ""}, profiles},
		{[]string{"profiles", "show", "1.34", ""}, noFile + "\n"},
		{[]string{"preflight", "--fail-on", ""}, "warning\nblocking\nnever\n" + noFile + "\n"},
		{[]string{"routes", "--kubeconfig", kubeconfig, "--context", ""}, "dev\tc1\nprod\tc1\n" + noFile + "\n"},
		{[]string{"--kubeconfig", kubeconfig, "snapshot", "--contexts", "prod,"}, "prod,dev\tc1\nprod,prod\tc1\n" + noFile + "\n"},
		{[]string{"routes", "--kubeconfig", kubeconfig, "--cluster", ""}, "c1\thttps://192.0.2.1:6443\n" + noFile + "\n"},
		{[]string{"routes", "--snapshot", ""}, "yaml\nyml\njson\n:8\n"}, // ShellCompDirectiveFilterFileExt
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"__complete"}, tt.args...)...)
			if code != ExitOK || out != tt.want {
				t.Errorf("code %d, stderr %q\n--- got\n%s--- want\n%s", code, errOut, out, tt.want)
			}
		})
	}
	// kubectl runs kubectl_complete-mvp ARGS... to complete `kubectl mvp ARGS...`: a copy of or
	// a symlink to the binary under that name completes as __complete does.
	out, _, code := runAs(t, "/home/u/bin/kubectl_complete-mvp", "profiles", "show", "v1.37")
	if want := "v1.37.2\tKubernetes 1.37 profile, 72 resources\n" + noFile + "\n"; code != ExitOK || out != want {
		t.Errorf("as kubectl_complete-mvp: code %d\n--- got\n%s--- want\n%s", code, out, want)
	}
}
