package simulate

import "testing"

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
