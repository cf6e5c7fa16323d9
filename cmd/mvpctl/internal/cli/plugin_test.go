package cli

import "testing"

func TestBinaryName(t *testing.T) {
	for in, want := range map[string]string{
		"kubectl-mvp": "kubectl-mvp", "/home/u/.krew/bin/kubectl-mvp": "kubectl-mvp",
		`C:\krew\bin\kubectl-mvp.exe`: "kubectl-mvp", "KUBECTL-MVP.EXE": "KUBECTL-MVP", "./mvpctl": "mvpctl", "": "",
	} {
		if got := Binary(in).Name(); got != want {
			t.Errorf("Binary(%q).Name() = %q, want %q", in, got, want)
		}
	}
}

func TestDisplayText(t *testing.T) {
	b := Binary("kubectl-mvp")
	for in, want := range map[string]string{
		"mvpctl routes --all":                       "kubectl mvp routes --all",
		"See 'mvpctl help exit-codes'":              "See 'kubectl mvp help exit-codes'",
		"mvpctl's version; mvpctl mvpctl":           "kubectl mvp's version; kubectl mvp kubectl mvp",
		"apiVersion: mvpctl.io/v1alpha1":            "apiVersion: mvpctl.io/v1alpha1",
		"mvpctl-probe-absent-x, bin/mvpctl, mvpctl": "mvpctl-probe-absent-x, bin/mvpctl, kubectl mvp",
	} {
		if got := b.DisplayText(in); got != want {
			t.Errorf("DisplayText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Binary("/usr/bin/mvpctl").DisplayText("mvpctl routes"); got != "mvpctl routes" {
		t.Errorf("as mvpctl: %q", got)
	}
}
