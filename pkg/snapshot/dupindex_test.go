package snapshot

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
)

// validateResourcesWithMap is validateResources as it was before firstIndex: a map[GVR]bool
// per list. The reference the duplicate checks must agree with, error for error.
func validateResourcesWithMap(rs []Resource, field string) error {
	seen := make(map[GVR]bool, len(rs))
	for j, r := range rs {
		f := lazyField{field, j}
		if r.Resource == "" {
			return fmt.Errorf("%s.resource: must be set", f)
		}
		if r.Version == "" {
			return fmt.Errorf("%s.version: must be set (resource %q)", f, r.Resource)
		}
		if strings.Contains(r.Resource, "/") {
			return fmt.Errorf("%s.resource: %q is a subresource; list it under its resource's subresources", f, r.Resource)
		}
		switch r.Source {
		case "", SourceBuiltin, SourceCRD, SourceAggregated:
		default:
			return fmt.Errorf("%s.source: %q is not one of %s, %s, %s", f, r.Source, SourceBuiltin, SourceCRD, SourceAggregated)
		}
		if seen[r.GVR()] {
			return fmt.Errorf("%s: duplicate resource %s", f, r.GVR())
		}
		seen[r.GVR()] = true
	}
	return nil
}

// sanitizeWithMap is Sanitize as it was before firstIndex.
func sanitizeWithMap(rs []Resource) (out []Resource, dropped []string) {
	seen := make(map[GVR]bool, len(rs))
	if len(rs) > 0 {
		out = make([]Resource, 0, len(rs))
	}
	for _, r := range rs {
		switch {
		case r.Resource == "" || r.Version == "" || strings.Contains(r.Resource, "/") || strings.Contains(r.Version, "/"):
			dropped = append(dropped, fmt.Sprintf("%q in group %q version %q", r.Resource, r.Group, r.Version))
		case seen[r.GVR()]:
			dropped = append(dropped, "a second "+r.GVR().String())
		default:
			seen[r.GVR()] = true
			out = append(out, r)
		}
	}
	return out, dropped
}

// checkWithMaps is DiscoveryDocument.Check as it was before firstIndex.
func checkWithMaps(d *DiscoveryDocument) error {
	groups := map[string]int{}
	for i, g := range d.Items {
		f := fmt.Sprintf("items[%d]", i)
		if g.Name == "" {
			return fmt.Errorf("%s.metadata.name: must be set (the core group is never in /apis)", f)
		}
		if j, dup := groups[g.Name]; dup {
			return fmt.Errorf("%s: duplicate group %q (also items[%d])", f, g.Name, j)
		}
		groups[g.Name] = i
		versions := map[string]bool{}
		for j, v := range g.Versions {
			if v.Version == "" {
				return fmt.Errorf("%s.versions[%d].version: must be set (group %q)", f, j, g.Name)
			}
			if versions[v.Version] {
				return fmt.Errorf("%s.versions[%d]: duplicate version %q of group %q", f, j, v.Version, g.Name)
			}
			versions[v.Version] = true
		}
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestValidateResourcesDuplicates: the first problem in input order is reported, a duplicate
// or a field, on both sides of linearMax (a list searched linearly, a list in a table), with
// the words of the map-based check.
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
				got, ref := errString(validateResources(tc.rs, "x")), errString(validateResourcesWithMap(tc.rs, "x"))
				if got != ref {
					t.Fatalf("error %s\nthe map-based check says %s", got, ref)
				}
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

// TestDuplicateChecksAgainstMaps: random lists with repeats and faults drawn from small pools,
// short and long, get the same error (or none) from the duplicate checks as from the
// map-based ones, and Sanitize keeps and drops what the map-based one did.
func TestDuplicateChecksAgainstMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups := []string{"", "apps", "batch", "a", "ap", "ps"}
	versions := []string{"v1", "v2", "v1beta1", "v2beta1", ""}
	names := []string{"pods", "jobs", "s", "po", "ds", "pods/status"}
	sources := []string{"", SourceCRD, SourceBuiltin, "magic"}
	pick := func(list []string, faulty bool) string {
		if faulty {
			return list[rng.IntN(len(list))]
		}
		return list[rng.IntN(len(list)-1)] // the last entry is the faulty one
	}
	sizes := []int{0, 1, 2, linearMax, linearMax + 1, 50, 400}
	failed, accepted, sanitized := 0, 0, 0
	for round := range 3000 {
		n := sizes[round%len(sizes)]
		faulty := round%3 == 0
		var rs []Resource
		for i := range n {
			// Unique filler (most entries) with repeats and faults among them.
			r := Resource{Group: pick(groups, false), Version: pick(versions, faulty && rng.IntN(n+1) == 0),
				Resource: pick(names, faulty && rng.IntN(n+1) == 0), Source: pick(sources, faulty && rng.IntN(n+1) == 0)}
			if rng.IntN(4) != 0 {
				r.Group = fmt.Sprintf("g%d.%s", i, r.Group)
			}
			rs = append(rs, r)
		}
		got, ref := errString(validateResources(rs, "rs")), errString(validateResourcesWithMap(rs, "rs"))
		if got != ref {
			t.Fatalf("resources %v:\nerror %s\nthe map-based check says %s", rs, got, ref)
		}
		if got == "<nil>" {
			accepted++
		} else {
			failed++
		}
		out, dropped := Sanitize(rs)
		if refOut, refDropped := sanitizeWithMap(rs); !reflect.DeepEqual(out, refOut) || !reflect.DeepEqual(dropped, refDropped) {
			t.Fatalf("Sanitize(%v) = %v, dropped %q\nthe map-based one: %v, dropped %q", rs, out, dropped, refOut, refDropped)
		}
		if len(dropped) > 0 {
			sanitized++
		}

		var d DiscoveryDocument
		for range n {
			var g apidiscoveryv2.APIGroupDiscovery
			g.Name = pick(groups[1:], false)
			if rng.IntN(3) != 0 {
				g.Name = fmt.Sprintf("g%d.%s", rng.IntN(4*n+1), g.Name)
			}
			if faulty && rng.IntN(n+1) == 0 {
				g.Name = ""
			}
			for range rng.IntN(12) {
				g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: pick(versions, faulty && rng.IntN(8) == 0)})
				if rng.IntN(3) != 0 {
					g.Versions[len(g.Versions)-1].Version = fmt.Sprintf("v%d", rng.IntN(40))
				}
			}
			d.Items = append(d.Items, g)
		}
		if got, ref := errString(d.Check()), errString(checkWithMaps(&d)); got != ref {
			t.Fatalf("document %v:\nerror %s\nthe map-based check says %s", d.Items, got, ref)
		}
	}
	// Both outcomes occur, or the comparison says little.
	if failed < 300 || accepted < 300 || sanitized < 300 {
		t.Fatalf("%d lists rejected, %d accepted, %d sanitized: the generator needs rebalancing", failed, accepted, sanitized)
	}
}
