package simulate

import "testing"

// TestRecentIDs: an ID is repeated while it is among the last n, forgotten after; empty IDs
// are never repeated.
func TestRecentIDs(t *testing.T) {
	r := newRecentIDs(2)
	steps := []struct {
		id   string
		want bool
	}{{"a", false}, {"a", true}, {"", false}, {"", false}, {"b", false}, {"a", true}, {"c", false}, {"a", false}, {"c", true}}
	for i, s := range steps {
		if got := r.repeated(s.id); got != s.want {
			t.Errorf("step %d: repeated(%q) = %t, want %t", i, s.id, got, s.want)
		}
	}
}
