package watch

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

// carryVanished keeps a server whose lease disappeared as down, with no identity.
func TestCarryVanished(t *testing.T) {
	prev := &snapshot.Snapshot{Servers: []snapshot.Server{{Name: "a", ID: "apiserver-a", Version: "v1.36.3", Reachable: true}, {Name: "b", ID: "apiserver-b", Version: "v1.36.3", Reachable: true}}}
	now := &snapshot.Snapshot{Servers: []snapshot.Server{prev.Servers[1]}}
	got := carryVanished(prev, now)
	if len(got.Servers) != 2 || got.Servers[1].Name != "a" || got.Servers[1].Reachable || got.Servers[1].ID != "" || got.Servers[1].Version != "v1.36.3" || got.Servers[1].Error != vanishedError {
		t.Errorf("carried: %+v", got.Servers)
	}
	if len(now.Servers) != 1 {
		t.Error("carryVanished changed its argument")
	}
	if again := carryVanished(got, now); len(again.Servers) != 2 || again.Servers[1].Error != vanishedError {
		t.Errorf("carried twice: %+v", again.Servers)
	}
}
