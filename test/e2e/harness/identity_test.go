package harness

import "testing"

// Values observed on live v1.36.3 servers (docs/mvp-behaviour.md §12) and by this
// harness (TestSmoke checks every live lease against LeaseID too).
func TestLeaseID(t *testing.T) {
	for host, want := range map[string]string{
		"rt-kas-a": "apiserver-vnd4jx4oqjwhzelhrnrmvhxiaq",
		"rt-kas-b": "apiserver-zdswiqgwrqw3dmxy5wxlvbgeqy",
	} {
		if got := LeaseID(host); got != want {
			t.Errorf("LeaseID(%q) = %s, want %s", host, got, want)
		}
	}
}
