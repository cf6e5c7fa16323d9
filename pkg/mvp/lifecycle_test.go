package mvp

import (
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
)

func TestRebuildsPeerCaches(t *testing.T) {
	lease := func(holder string) *snapshot.Lease {
		return &snapshot.Lease{Name: "apiserver-a", HolderIdentity: holder}
	}
	for _, tt := range []struct {
		name          string
		before, after *snapshot.Lease
		want          bool
	}{
		{"no lease before or after (a crash of a server without one)", nil, nil, false},
		{"created: a server joins", nil, lease("a_1"), true},
		{"deleted: a graceful stop on 1.35+", lease("a_1"), nil, true},
		{"renewed: same holder", lease("a_1"), lease("a_1"), false},
		{"new holder: the server restarted", lease("a_1"), lease("a_2"), true},
	} {
		if got := RebuildsPeerCaches(tt.before, tt.after); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
