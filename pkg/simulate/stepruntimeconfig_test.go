package simulate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mvpctl/mvpctl/pkg/mvp"
)

// TestStepRuntimeConfig: a step's --runtime-config is read once, where the step is read (a
// --step flag, a scenario file), into what it asks for; its text is kept as written, and a
// text that is no --runtime-config is refused there.
func TestStepRuntimeConfig(t *testing.T) {
	for _, tc := range []struct {
		text   string
		source configSource
		config mvp.RuntimeConfig
		err    string
	}{
		{text: "batch/v1=false", source: sourceStep, config: mvp.RuntimeConfig{Disabled: []string{"batch/v1"}}},
		{text: "api/all=true,batch/v1=false", source: sourceStep, config: mvp.RuntimeConfig{AllAPIs: true, Disabled: []string{"batch/v1"}}},
		{text: "default", source: sourceDefault},
		{text: "batch/v1=maybe", err: `runtime-config "batch/v1=maybe": "maybe" is not true or false`},
	} {
		t.Run(tc.text, func(t *testing.T) {
			c := ReadStepRuntimeConfig(tc.text)
			if c.String() != tc.text {
				t.Errorf("String() = %q, want the text as written", c.String())
			}
			fromFlag, flagErr := ParseStep("upgrade:a=1.37,runtime-config=" + tc.text)
			fromFile, fileErr := loadScenarioText(t, "- {action: upgrade, server: a, to: \"1.37\", runtimeConfig: \""+tc.text+"\"}\n")
			if tc.err != "" {
				for _, err := range []error{c.Err(), flagErr, fileErr} {
					if err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Errorf("error %v, want %q", err, tc.err)
					}
				}
				return
			}
			if c.Err() != nil || flagErr != nil || fileErr != nil {
				t.Fatalf("errors %v, %v, %v", c.Err(), flagErr, fileErr)
			}
			want := runtimeChoice{config: tc.config, source: tc.source}
			for _, got := range []*StepRuntimeConfig{c, fromFlag.RuntimeConfig, fromFile.Steps[0].RuntimeConfig} {
				if !reflect.DeepEqual(got.asked, want) {
					t.Errorf("asked %+v, want %+v", got.asked, want)
				}
			}
			if got := fromFlag.String(); got != "upgrade a to 1.37 with --runtime-config="+tc.text {
				t.Errorf("step %q", got)
			}
			if b, err := json.Marshal(fromFlag); err != nil || !strings.Contains(string(b), `"runtimeConfig":"`+tc.text+`"`) {
				t.Errorf("JSON %s %v, want the text as written", b, err)
			}
		})
	}
	// Not a string: refused as a string field is, naming the field.
	if _, err := loadScenarioText(t, "- {action: upgrade, server: a, to: \"1.37\", runtimeConfig: 3}\n"); err == nil || !strings.Contains(err.Error(), "runtimeConfig of type string") {
		t.Errorf("a number as runtimeConfig: %v", err)
	}
	// A step built without reading it is refused when it runs.
	start, err := FromProfiles([]ServerVersion{{Name: "a", Version: "1.36"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	step := Step{Action: ActionUpgrade, Server: "a", To: "1.37", RuntimeConfig: ReadStepRuntimeConfig("batch/v1=maybe")}
	if _, err := Run(start, []Step{step}); err == nil || !strings.Contains(err.Error(), "is not true or false") {
		t.Errorf("running an unreadable --runtime-config: %v", err)
	}
}

// loadScenarioText is LoadScenario of a scenario from one 1.36 server with steps.
func loadScenarioText(t *testing.T, steps string) (*Scenario, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scenario.yaml")
	text := "apiVersion: mvpctl.io/v1alpha1\nkind: Scenario\nfrom:\n  servers:\n  - {name: a, version: \"1.36\"}\nsteps:\n" + steps
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadScenario(path)
}
