package snapshot

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestValidateResourcesDuplicates: the first problem in input order is reported, a duplicate
// or a field, on both sides of linearMax (a list searched linearly, a list in a table).
func TestValidateResourcesDuplicates(t *testing.T) {
	gvr := func(g, v, r string) Resource { return Resource{Group: g, Version: v, Resource: r} }
	a, b, c := gvr("apps", "v1", "deployments"), gvr("", "v1", "pods"), gvr("batch", "v1", "jobs")
	// Same strings, other fields: a GVR is three strings, not their concatenation.
	ab := gvr("apps", "v1", "deploymentsx")
	filler := func(n int) []Resource {
		var out []Resource
		for i := range n {
			out = append(out, gvr(fmt.Sprintf("g%d.example.com", i), "v1", "widgets"))
		}
		return out
	}
	cat := func(parts ...[]Resource) []Resource {
		var out []Resource
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, pad := range []int{0, linearMax, 1000} { // a short list, the first table size, a large one
		for _, tc := range []struct {
			name string
			rs   []Resource
			at   int // the entry named, after the filler; -1: valid
			want string
		}{
			{"none", cat(filler(pad), []Resource{a, b, c, ab}), -1, ""},
			{"adjacent", cat(filler(pad), []Resource{a, a}), 1, "duplicate resource apps/v1/deployments"},
			{"the first repeat in input order, not the first entry repeated", cat(filler(pad), []Resource{a, b, b, a}), 2,
				"duplicate resource v1/pods"},
			{"same group and version, other resource", cat(filler(pad), []Resource{a, ab, gvr("apps", "v2", "deployments"), gvr("core", "v1", "deployments")}), -1, ""},
			{"a field error before the duplicate", cat(filler(pad), []Resource{a, gvr("apps", "", "x"), a}), 1, ".version: must be set"},
			{"the duplicate before a field error", cat(filler(pad), []Resource{a, a, gvr("apps", "", "x")}), 1, "duplicate resource apps/v1/deployments"},
			{"a repeat of the first entry, the filler between", cat([]Resource{c}, filler(pad), []Resource{c}), 1, "duplicate resource batch/v1/jobs"},
		} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, pad), func(t *testing.T) {
				got := errString(validateResources(tc.rs, "x"))
				want := "<nil>"
				if tc.at >= 0 {
					sep := ": "
					if strings.HasPrefix(tc.want, ".") {
						sep = ""
					}
					want = fmt.Sprintf("x[%d]%s%s", pad+tc.at, sep, tc.want)
				}
				if !strings.HasPrefix(got, want) {
					t.Fatalf("error %s, want %s", got, want)
				}
			})
		}
	}
}

// TestFirstIndexAgainstMap: for random lists with repeats (GVRs and strings from small pools,
// short and long, some entries left out as Sanitize leaves out invalid ones), firstIndex
// reports a repeat exactly where a map of first positions does, naming the same earlier entry.
func TestFirstIndexAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups := []string{"", "apps", "batch", "a", "ap", "ps"}
	versions := []string{"v1", "v2", "v1beta1", "v2beta1"}
	names := []string{"pods", "jobs", "s", "po", "ds"}
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	sizes := []int{0, 1, 2, linearMax, linearMax + 1, 50, 400}
	repeats := 0
	for round := range 3000 {
		n := sizes[round%len(sizes)]
		rs := make([]Resource, n)
		keys := make([]string, n)
		for i := range n {
			rs[i] = Resource{Group: pick(groups), Version: pick(versions), Resource: pick(names)}
			if rng.IntN(4) != 0 { // mostly distinct, with repeats among them
				rs[i].Group = fmt.Sprintf("g%d.%s", rng.IntN(2*n+1), rs[i].Group)
			}
			keys[i] = rs[i].GVR().String()
		}
		byGVR, byKey := newFirstIndex(n), newFirstIndex(n)
		firstGVR, firstKey := map[GVR]int{}, map[string]int{}
		for i := range n {
			if rng.IntN(10) == 0 {
				continue // left out: never added
			}
			earlier, dup := byGVR.addResource(rs, i)
			want, wantDup := firstGVR[rs[i].GVR()]
			if dup != wantDup || (dup && earlier != want) {
				t.Fatalf("round %d: addResource(%d) %s = (%d, %v), want (%d, %v)", round, i, rs[i].GVR(), earlier, dup, want, wantDup)
			}
			if !dup {
				firstGVR[rs[i].GVR()] = i
			} else {
				repeats++
			}
			earlier, dup = byKey.addString(i, keys[i], func(j int) string { return keys[j] })
			want, wantDup = firstKey[keys[i]]
			if dup != wantDup || (dup && earlier != want) {
				t.Fatalf("round %d: addString(%d) %q = (%d, %v), want (%d, %v)", round, i, keys[i], earlier, dup, want, wantDup)
			}
			if !dup {
				firstKey[keys[i]] = i
			}
		}
	}
	if repeats < 3000 {
		t.Fatalf("only %d repeats: the comparison says little", repeats)
	}
}

// TestCheckAndSanitizeDuplicates: a document's repeated group or version, and Sanitize's
// repeated GVR, are found in lists searched linearly and in lists in a table.
func TestCheckAndSanitizeDuplicates(t *testing.T) {
	for _, pad := range []int{0, linearMax, 100} {
		var d DiscoveryDocument
		for i := range pad {
			d.Items = append(d.Items, apidiscoveryv2.APIGroupDiscovery{})
			d.Items[i].Name = fmt.Sprintf("g%d.example.com", i)
		}
		group := func(name string, versions ...string) apidiscoveryv2.APIGroupDiscovery {
			var g apidiscoveryv2.APIGroupDiscovery
			g.Name = name
			for _, v := range versions {
				g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: v})
			}
			return g
		}
		var manyVersions []string
		for i := range pad {
			manyVersions = append(manyVersions, fmt.Sprintf("v%d", i+3))
		}
		for _, c := range []struct {
			items []apidiscoveryv2.APIGroupDiscovery
			want  string
		}{
			{[]apidiscoveryv2.APIGroupDiscovery{group("apps", "v1"), group("batch", "v1")}, "<nil>"},
			{[]apidiscoveryv2.APIGroupDiscovery{group("apps", "v1"), group("batch"), group("apps", "v2")},
				fmt.Sprintf("items[%d]: duplicate group \"apps\" (also items[%d])", pad+2, pad)},
			{[]apidiscoveryv2.APIGroupDiscovery{group("apps", append(append([]string{"v1"}, manyVersions...), "v2", "v1")...)},
				fmt.Sprintf("items[%d].versions[%d]: duplicate version \"v1\" of group \"apps\"", pad, pad+2)},
		} {
			doc := DiscoveryDocument{Items: append(append([]apidiscoveryv2.APIGroupDiscovery(nil), d.Items...), c.items...)}
			if got := errString(doc.Check()); got != c.want {
				t.Errorf("pad %d: Check() = %s, want %s", pad, got, c.want)
			}
		}

		var rs []Resource
		for i := range pad {
			rs = append(rs, Resource{Group: fmt.Sprintf("g%d.example.com", i), Version: "v1", Resource: "widgets"})
		}
		jobs := Resource{Group: "batch", Version: "v1", Resource: "jobs"}
		rs = append(rs, jobs, Resource{Group: "batch", Version: "v1", Resource: "jobs/status"}, jobs)
		wantDropped := []string{`"jobs/status" in group "batch" version "v1"`, "a second batch/v1/jobs"}
		if pad > 0 { // the first entry again, after the whole list
			rs = append(rs, rs[0])
			wantDropped = append(wantDropped, "a second g0.example.com/v1/widgets")
		}
		out, dropped := Sanitize(rs)
		wantOut := len(rs) - len(wantDropped)
		if !reflect.DeepEqual(dropped, wantDropped) || len(out) != wantOut {
			t.Errorf("pad %d: Sanitize kept %d, dropped %q; want %d kept, %q dropped", pad, len(out), dropped, wantOut, wantDropped)
		}
	}
}
