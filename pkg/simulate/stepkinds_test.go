package simulate

import (
	"strings"
	"testing"
)

// TestStepKinds: every action has a StepKind, in order, whose example parses as that action.
func TestStepKinds(t *testing.T) {
	if len(StepKinds) != len(actions) {
		t.Fatalf("%d step kinds for %d actions", len(StepKinds), len(actions))
	}
	for i, k := range StepKinds {
		st, err := ParseStep(k.Example)
		if k.Action != actions[i] || err != nil || st.Action != k.Action || k.Does == "" {
			t.Errorf("StepKinds[%d] %+v: parses as %+v, %v; want action %s", i, k, st, err, actions[i])
		}
	}
}

// TestStepFormsNameEveryKind: --step's help names every kind a user gives (all but keep, which
// a plan makes), and every kind has a unit.
func TestStepFormsNameEveryKind(t *testing.T) {
	forms := strings.Join(StepForms(), ", ")
	for _, k := range StepKinds {
		if unitOf(k.Action) == nil {
			t.Errorf("%s: no unit", k.Action)
		}
		if k.Action == ActionKeep {
			continue
		}
		if !strings.Contains(forms, k.Action+":") && !strings.Contains(forms, k.Action+"|") && !strings.Contains(forms, "|"+k.Action+":") {
			t.Errorf("--step's help (%s) does not name %s", forms, k.Action)
		}
	}
}
