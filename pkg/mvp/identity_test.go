package mvp

import "testing"

// The IDs of docs/behaviour.md §12, computed there independently and seen on live v1.36.3 leases.
func TestServerID(t *testing.T) {
	for host, want := range map[string]string{
		"rt-kas-a": "apiserver-vnd4jx4oqjwhzelhrnrmvhxiaq",
		"rt-kas-b": "apiserver-zdswiqgwrqw3dmxy5wxlvbgeqy",
	} {
		if got := ServerID(host); got != want {
			t.Errorf("ServerID(%q) = %s, want %s", host, got, want)
		}
	}
}
