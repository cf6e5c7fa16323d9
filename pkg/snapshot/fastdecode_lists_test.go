//go:build !snapdecode

package snapshot

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// stringLists calls visit with every []string in v (a pointer), its path and the list.
func stringLists(v reflect.Value, path string, visit func(path string, list []string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			stringLists(v.Elem(), path, visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				stringLists(v.Field(i), path+"."+v.Type().Field(i).Name, visit)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.String {
			visit(path, v.Interface().([]string))
			return
		}
		for i := range v.Len() {
			stringLists(v.Index(i), fmt.Sprintf("%s[%d]", path, i), visit)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			stringLists(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()), visit)
		}
	}
}

// TestDecodedListsShareArrays: the generated decoder gives equal short lists of strings one
// backing array (shareStrings), in one piece and with the servers side by side (a decoder per
// worker: at most one array per server then), and every list it decodes has its capacity at
// its length, so that an append to one never writes into another. The values are the
// reference decoder's.
func TestDecodedListsShareArrays(t *testing.T) {
	// Verbs lists that alternate (never the list decoded just before, which repeatStrings
	// would copy anyway), subresources on some resources, evidence on every server.
	verbs := [][]string{{"get", "list", "watch"}, {"create", "delete", "get", "list", "patch", "update", "watch"}, {"get"}, {"get", "list"}}
	small := New()
	for i := range 3 {
		srv := Server{Name: fmt.Sprintf("kas-%d", i), Version: "v1.36.3", Reachable: true,
			PeerProxy: PeerProxy{Evidence: []string{"readyz hook peer-endpoint-reconciler-controller"}}}
		for j := range 40 {
			r := Resource{Group: fmt.Sprintf("g%d.example.com", j), Version: "v1", Resource: "widgets", Verbs: verbs[j%len(verbs)]}
			if j%3 == 0 {
				r.Subresources = []string{"status"}
			}
			srv.Resources = append(srv.Resources, r)
		}
		small.Servers = append(small.Servers, srv)
	}
	for _, tc := range []struct {
		name string
		snap *Snapshot
		// arraysPerList bounds the backing arrays of each distinct list: 1 with one decoder,
		// one per server with a decoder per worker.
		arraysPerList int
	}{
		{"one piece", small, 1},
		{"servers side by side", benchSnapshot(3000), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := tc.snap.Marshal(true)
			if err != nil {
				t.Fatal(err)
			}
			if side := len(data) >= parallelMin; side != (tc.arraysPerList > 1) {
				t.Fatalf("%d bytes: not the layout this case is for (parallelMin %d)", len(data), parallelMin)
			}
			if !sameAsReference(t, tc.name, data) {
				t.Fatal("the generated decoder declined the snapshot")
			}
			var s Snapshot
			if ok, _, _ := fastDecode(data, &s); !ok {
				t.Fatal("declined")
			}
			arrays := map[string]map[*string]bool{} // a list's values → its backing arrays
			lists := 0
			stringLists(reflect.ValueOf(&s), "snapshot", func(path string, list []string) {
				if cap(list) != len(list) {
					t.Errorf("%s: capacity %d, length %d: an append would write past it", path, cap(list), len(list))
				}
				if len(list) == 0 {
					return
				}
				lists++
				key := strings.Join(list, "\x00")
				if arrays[key] == nil {
					arrays[key] = map[*string]bool{}
				}
				arrays[key][unsafe.SliceData(list)] = true
			})
			if len(arrays) < 3 || lists < 10*len(arrays) {
				t.Fatalf("%d lists, %d distinct: too few repeats to say anything", lists, len(arrays))
			}
			for key, a := range arrays {
				if len(a) > tc.arraysPerList {
					t.Errorf("%q: %d backing arrays, want at most %d", strings.ReplaceAll(key, "\x00", ","), len(a), tc.arraysPerList)
				}
			}
			// An append to a shared list leaves the others as they were.
			r0, r1 := &s.Servers[0].Resources[0], &s.Servers[0].Resources[len(verbs)]
			if unsafe.SliceData(r0.Verbs) != unsafe.SliceData(r1.Verbs) {
				t.Fatalf("%v and %v: not shared", r0.Verbs, r1.Verbs)
			}
			want, _ := json.Marshal(r1.Verbs)
			r0.Verbs = append(r0.Verbs, "deletecollection")
			if got, _ := json.Marshal(r1.Verbs); string(got) != string(want) {
				t.Errorf("an append to one list changed another: %s, was %s", got, want)
			}
		})
	}
}
