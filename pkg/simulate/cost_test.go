package simulate

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRunRefusesPastTheRoutingCellBound(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	servers := func(n int) []ServerVersion {
		var out []ServerVersion
		for i := 0; i < n; i++ {
			out = append(out, ServerVersion{Name: fmt.Sprintf("s%d", i), Version: "1.36"})
		}
		return out
	}
	upgrades := func(n, of int, crash bool) []Step {
		var out []Step
		for i := 0; i < n; i++ {
			out = append(out, Step{Action: ActionUpgrade, Server: fmt.Sprintf("s%d", i%of), To: "1.37"})
			if crash {
				out = append(out, Step{Action: ActionCrash, Server: fmt.Sprintf("s%d", i%of)})
			}
		}
		return out
	}
	// The test profiles serve 5 GVRs between 1.36 and 1.37 (4 each, 3 of them shared).
	for _, tc := range []struct {
		name    string
		servers int
		steps   []Step
		want    Cost
		refused bool
	}{
		{"two servers upgraded", 2, upgrades(2, 2, false), Cost{2, 3, 5}, false},
		{"a crash is evaluated twice", 2, upgrades(2, 2, true), Cost{2, 7, 5}, false},
		{"just at the bound", 500, upgrades(99, 500, false), Cost{500, 100, 5}, false},
		{"one step past the bound", 500, upgrades(100, 500, false), Cost{500, 101, 5}, true},
		{"300 servers × 200 steps", 300, upgrades(200, 300, false), Cost{300, 201, 5}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, err := FromProfiles(servers(tc.servers), at)
			if err != nil {
				t.Fatal(err)
			}
			if got := EstimateCost(start, tc.steps); got != tc.want {
				t.Fatalf("EstimateCost = %+v, want %+v", got, tc.want)
			}
			if !tc.refused {
				if err := checkCost(tc.want); err != nil {
					t.Fatalf("refused within the bound: %v", err)
				}
				return
			}
			_, err = Run(start, tc.steps)
			want := fmt.Sprintf("%d servers × %d evaluated steps × %d GVRs = %d routing cells; at most %d are simulated",
				tc.want.Servers, tc.want.Evaluations, tc.want.GVRs, tc.want.Cells(), MaxRoutingCells)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Run: %v, want one line with %q", err, want)
			}
		})
	}
}
