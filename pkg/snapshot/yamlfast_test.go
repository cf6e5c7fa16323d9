package snapshot

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/mvpctl/mvpctl/internal/yamljson"
)

// TestYAMLFastPath: decoding a YAML snapshot through internal/yamljson and the JSON path gives
// the same snapshot, or the same error, as the full YAML path; and every YAML snapshot mvpctl
// writes (Marshal) is one the fast path accepts.
func TestYAMLFastPath(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../examples/*.yaml", "../../cmd/mvpctl/testdata/snapshots/*.yaml", "../../cmd/mvpctl/testdata/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("only %d files", len(files))
	}
	written := []*Snapshot{benchSnapshot(300)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fast, full Snapshot
		_, fastErr := decode(&input{data: data}, false, &fast)
		fullErr := yaml.UnmarshalStrict(data, &full)
		if fullErr != nil {
			fullErr = decodeError(fullErr)
		}
		switch {
		case (fastErr == nil) != (fullErr == nil):
			t.Errorf("%s: fast path error %v, full path error %v", f, fastErr, fullErr)
		case fastErr != nil && fastErr.Error() != fullErr.Error():
			t.Errorf("%s: errors differ:\n fast: %v\n full: %v", f, fastErr, fullErr)
		case fastErr == nil && !reflect.DeepEqual(fast, full):
			t.Errorf("%s: the two paths decode different snapshots", f)
		}
		if s, err := Decode(data); err == nil {
			written = append(written, s)
		}
	}
	for i, s := range written {
		out, err := s.Marshal(false)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := yamljson.Convert(out); !ok {
			t.Errorf("snapshot %d as mvpctl writes it is declined by the fast path", i)
		}
	}
}
