package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestActionResultIsTheVerdict runs the preflight step of the GitHub Action (action.yml) with
// a real mvpctl: its outputs are the verdict's result, whatever --fail-on makes of the exit
// code, and its exit code is preflight's.
func TestActionResultIsTheVerdict(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Steps []struct {
				ID  string `json:"id"`
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"runs"`
	}
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, s := range action.Runs.Steps {
		if s.ID == "preflight" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step with id preflight")
	}
	bin := binary(t)
	for _, tt := range []struct {
		to, args, failOn string
		exit             int
		result           string
	}{
		{"1.38", "--servers a=1.37,b=1.37,c=1.37 --proxy=configured", "warning", ExitIncomplete, "warning"},
		{"1.38", "--servers a=1.37,b=1.37,c=1.37 --proxy=configured", "blocking", ExitOK, "warning"},
		{"1.37", "--servers a=1.37,b=1.37 --proxy=configured", "warning", ExitOK, "pass"},
		{"1.37", "--snapshot ../../examples/skew.yaml", "blocking", ExitFindings, "blocking"},
		{"1.37", "--snapshot ../../examples/skew.yaml", "never", ExitOK, "blocking"},
		{"1.37", "--snapshot ../../examples/skew.yaml --resource jbos", "warning", ExitError, "error"},
	} {
		t.Run(tt.args+"/"+tt.failOn, func(t *testing.T) {
			tmp := t.TempDir()
			outputs := filepath.Join(tmp, "outputs")
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "RUNNER_TEMP="+tmp,
				"GITHUB_OUTPUT="+outputs, "GITHUB_STEP_SUMMARY="+filepath.Join(tmp, "summary"),
				"TO="+tt.to, "ARGS="+tt.args, "FAIL_ON="+tt.failOn, "BASELINE=")
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != tt.exit {
				t.Errorf("step exit %d, want %d:\n%s", code, tt.exit, out)
			}
			got, _ := os.ReadFile(outputs)
			for _, want := range []string{"result=" + tt.result + "\n", "exit-code=" + string(rune('0'+tt.exit)) + "\n"} {
				if !strings.Contains(string(got), want) {
					t.Errorf("outputs lack %q:\n%s\nstep:\n%s", want, got, out)
				}
			}
		})
	}
}
