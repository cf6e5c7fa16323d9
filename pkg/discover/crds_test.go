package discover

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mvpctl/mvpctl/pkg/snapshot"
	dt "github.com/mvpctl/mvpctl/test/fake/apiserver"
)

// crdJSON is one CustomResourceDefinition as the apiserver lists it (the fields discovery reads).
func crdJSON(group, kind, plural string, versions ...map[string]any) map[string]any {
	return map[string]any{"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{"group": group, "scope": "Namespaced", "names": map[string]any{"kind": kind, "plural": plural}, "versions": versions}}
}

// TestCRDVersionsRecorded: every CRD's versions are recorded with served, deprecated and the
// warning; what is cut to the bounds, and a list that cannot be read, are said.
func TestCRDVersionsRecorded(t *testing.T) {
	warn := "example.com/v1beta1 Widget is deprecated;\x1b[2J use example.com/v1"
	long := strings.Repeat("é", snapshot.MaxDeprecationWarning+10)
	widgets := crdJSON("example.com", "Widget", "widgets",
		map[string]any{"name": "v1", "served": true, "storage": true},
		map[string]any{"name": "v1beta1", "served": true, "deprecated": true, "deprecationWarning": warn},
		map[string]any{"name": "v1alpha1", "served": false})
	gadgets := crdJSON("gadgets.io", "Gadget", "gadgets",
		map[string]any{"name": "v2", "served": true, "storage": true},
		map[string]any{"name": "v1", "served": true, "deprecated": true, "deprecationWarning": long})
	list := func(items ...map[string]any) []byte {
		b, err := json.Marshal(map[string]any{"kind": "CustomResourceDefinitionList", "apiVersion": "apiextensions.k8s.io/v1", "items": items})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	str := func(s string) *string { return &s }
	// The escape sequence is recorded as text (snapshot.EscapeText), never as a control character.
	recorded := strings.Replace(warn, "\x1b", `\x1b`, 1)
	for _, tc := range []struct {
		name     string
		crds     []byte
		override http.HandlerFunc
		want     []snapshot.CustomResourceDefinition
		read     bool
		warning  string // a warning that must be said ("" = none about CRDs)
	}{
		{"served, deprecated with a warning, not served", list(widgets), nil, []snapshot.CustomResourceDefinition{{Group: "example.com", Kind: "Widget", Plural: "widgets",
			Versions: []snapshot.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}, {Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: str(recorded)}, {Name: "v1alpha1"}}}}, true, ""},
		{"a warning past the apiserver's 256 characters, cut and said", list(widgets, gadgets), nil, []snapshot.CustomResourceDefinition{
			{Group: "example.com", Kind: "Widget", Plural: "widgets",
				Versions: []snapshot.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}, {Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: str(recorded)}, {Name: "v1alpha1"}}},
			{Group: "gadgets.io", Kind: "Gadget", Plural: "gadgets",
				Versions: []snapshot.CustomResourceDefinitionVersion{{Name: "v2", Served: true, Storage: true}, {Name: "v1", Served: true, Deprecated: true, DeprecationWarning: str(long[:2*snapshot.MaxDeprecationWarning] + "…")}}}},
			true, "gadgets.gadgets.io version v1: its deprecationWarning cut to 256 characters"},
		{"a CRD without a kind: not recorded, said", list(widgets, crdJSON("broken.io", "", "things", map[string]any{"name": "v1", "served": true})), nil,
			[]snapshot.CustomResourceDefinition{{Group: "example.com", Kind: "Widget", Plural: "widgets",
				Versions: []snapshot.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}, {Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: str(recorded)}, {Name: "v1alpha1"}}}},
			true, `a CRD without group, kind, plural or versions ("broken.io", "", "things", 1 version(s)) not recorded`},
		{"no permission to list them", nil, func(w http.ResponseWriter, r *http.Request) {
			dt.WriteStatus(w, http.StatusForbidden, "Forbidden", `customresourcedefinitions.apiextensions.k8s.io is forbidden: User "ci" cannot list resource "customresourcedefinitions"`)
		}, nil, false, "cannot list CustomResourceDefinitions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dt.NewPKI(t)
			srv := &dt.Server{Cluster: &dt.Cluster{CRDsJSON: tc.crds}, GitVersion: "v1.36.3", Mode: dt.ModeNoPeer, Core: dt.CoreGroup(), Groups: dt.BuiltinGroups(true)}
			if tc.override != nil {
				srv.Override = map[string]http.HandlerFunc{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions": tc.override}
			}
			f := srv.Start(t, p)
			var rec recorder
			snap, err := discoverRT(t, context.Background(), rec.opts(Options{Config: dt.ClientConfig(p, f.URL(), "")}))
			if err != nil {
				t.Fatal(err)
			}
			c := snap.Cluster
			if got := c.CustomResourceDefinitions; !reflect.DeepEqual(got, tc.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tc.want)
				t.Errorf("recorded %s\nwant     %s", g, w)
			}
			if c.ListsRead.CustomResourceDefinitions != tc.read || tc.read != (c.ListsRead.CustomResourceDefinitionsError == "") {
				t.Errorf("lists read %+v, want CRDs read %v with an error exactly when not", c.ListsRead, tc.read)
			}
			if !tc.read && !strings.Contains(c.ListsRead.CustomResourceDefinitionsError, "forbidden") {
				t.Errorf("the error recorded does not say why: %q", c.ListsRead.CustomResourceDefinitionsError)
			}
			said := fmt.Sprint(rec.warnings)
			if tc.warning != "" && !strings.Contains(said, tc.warning) {
				t.Errorf("warnings %q, want one saying %q", rec.warnings, tc.warning)
			}
			if tc.warning == "" && strings.Contains(said, "CustomResourceDefinitions") {
				t.Errorf("a warning about CRDs where none is due: %q", rec.warnings)
			}
		})
	}
}
