package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/cmd/mvpctl/internal/render"
	"github.com/mvpctl/mvpctl/pkg/output"
	"github.com/mvpctl/mvpctl/pkg/preflight"
	"github.com/mvpctl/mvpctl/pkg/replay"
	"github.com/mvpctl/mvpctl/pkg/simulate"
	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// TestHostileHelmRelease plants the hostile strings in a Helm release's name, which names the
// clients of its manifest in the gate's evidence, and prints the gate's report in every format
// of preflight: the release is shown, escaped, on its line.
func TestHostileHelmRelease(t *testing.T) {
	snap, err := snapshot.LoadFile("../../examples/skew.yaml")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := simulate.UpgradePlan(snap, "1.37", nil)
	if err != nil {
		t.Fatal(err)
	}
	name := "rel" + hostileClear + "<br>" + hostileLine
	rep, err := preflight.Run(t.Context(), preflight.Options{Start: snap, Steps: steps, Target: "1.37",
		HelmReleases: func(_ context.Context, into *replay.HelmMapper) error {
			return into.Add(snapshot.HelmRelease{Namespace: "apps", Name: name, Revision: 3},
				[]byte("apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: c}\n"))
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range formatsOf(t, "mvpctl preflight") {
		t.Run("-o "+form, func(t *testing.T) {
			opts := output.Options{Format: output.Format(form)}
			if j, ok := strings.CutPrefix(form, "jsonpath="); ok {
				opts = output.Options{Format: output.FormatJSONPath, JSONPath: j}
			}
			var b bytes.Buffer
			if err := output.Write(&b, render.Preflight{Report: rep, ExitCode: verdictExitCode}, opts); err != nil {
				t.Fatal(err)
			}
			checkHostileOutput(t, form, "stdout", b.String())
			if strings.Contains(b.String(), "<br>FAKE") {
				t.Errorf("-o %s: the release's <br> is a tag:\n%s", form, b.String())
			}
			switch form {
			case "table", "markdown", "junit":
				if !strings.Contains(b.String(), `rel\x1b[2J`) || !strings.Contains(b.String(), `\x0aFAKE-LINE`) {
					t.Errorf("-o %s: the release is not shown, escaped:\n%s", form, b.String())
				}
			}
		})
	}
}
