package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/preflight"
)

// TestPatchUpgradeSaid: a server at the target minor but an older patch is kept by --to 1.37,
// and the report says so with the command that rehearses its patch restart; --to 1.37.2
// upgrades it and says nothing of the kind.
func TestPatchUpgradeSaid(t *testing.T) {
	const example = "../../examples/skew.yaml"
	out, _, _ := run(t, "preflight", "--snapshot", example, "--to", "1.37")
	text := strings.Join(paragraphs(out), "\n")
	if !strings.Contains(text, "Kept: kas-a runs v1.37.1: a patch upgrade to v1.37.2 restarts it, which this plan does not; --to 1.37.2 rehearses it") {
		t.Errorf("preflight --to 1.37 does not say that kas-a's patch upgrade is not rehearsed:\n%s", out)
	}
	js, _, _ := run(t, "preflight", "--snapshot", example, "--to", "1.37", "-o", "json")
	var rep preflight.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Scenario.Kept) != 1 {
		t.Errorf("-o json: scenario.kept %q (%v), want one", rep.Scenario.Kept, err)
	}
	sim, _, _ := run(t, "simulate", "upgrade", "--snapshot", example, "--to", "1.37")
	if !strings.Contains(strings.Join(paragraphs(sim), "\n"), "note: kas-a runs v1.37.1: a patch upgrade to v1.37.2 restarts it") {
		t.Errorf("simulate upgrade --to 1.37 does not say it:\n%s", sim)
	}
	out, _, _ = run(t, "preflight", "--snapshot", example, "--to", "1.37.2")
	if strings.Contains(out, "Kept:") || !strings.Contains(out, "upgrade kas-a to 1.37.2") {
		t.Errorf("preflight --to 1.37.2 keeps kas-a, or does not upgrade it:\n%s", out)
	}
}

// TestSimulateSaysFromWhatToWhat: each answer a step changes is said from what, at which
// step, to what, with the GVRs under it.
func TestSimulateSaysFromWhatToWhat(t *testing.T) {
	out, _, _ := run(t, "simulate", "upgrade", "--snapshot", "../../examples/skew.yaml", "--to", "1.37")
	for _, want := range []string{
		"kas-a: from proxy→kas-b at step 1 to 404: 21 GVR(s)\n    admissionregistration.k8s.io/v1alpha1/mutatingadmissionpolicies\n",
		"kas-a: from 404 at step 2 to proxy→kas-b: 18 GVR(s)\n",
		"kas-b: from proxy→kas-a at step 1 to local: 4 GVR(s)\n    certificates.k8s.io/v1/clustertrustbundles",
		"kas-b: from served by none at step 1 to local: 3 GVR(s)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("simulate upgrade lacks %q:\n%s", want, out)
		}
	}
}

// TestLiveOnlyFlagsRefused: a flag that only a read of the live cluster uses is refused, in
// one line that names it, with a start from a file or from profiles.
func TestLiveOnlyFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--snapshot", "../../examples/skew.yaml", "--managed-fields-limit", "10"}, "error: --managed-fields-limit: it reads the live cluster, which --snapshot, --servers and --scenario do not: give it without them\n"},
		{[]string{"--servers", "a=1.36,b=1.36", "--managed-fields-limit", "0"}, "error: --managed-fields-limit: it reads the live cluster"},
		{[]string{"--snapshot", "../../examples/skew.yaml", "--helm-releases", "--managed-fields-limit", "3"}, "error: --helm-releases, --managed-fields-limit: they read the live cluster"},
	} {
		out, errOut, code := run(t, append([]string{"preflight", "--to", "1.37"}, tc.args...)...)
		if code != ExitError || out != "" || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errOut, ExitError, tc.want)
		}
	}
}
